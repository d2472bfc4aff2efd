"""The benchmarks find their repositories through MONODEX_BENCH_MIRRORS and say how to get them."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _common() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_common", BENCH / "_common.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_missing_mirror_says_how_to_clone_it(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("MONODEX_BENCH_MIRRORS", str(tmp_path / "mirrors"))
    with pytest.raises(SystemExit) as err:
        _common().checkout("tiktok+sparo")
    text = str(err.value)
    assert (
        f"git clone --mirror https://github.com/tiktok/sparo.git {tmp_path}/mirrors/tiktok+sparo/repo" in text
    )
    assert "/work/.mirror" not in (BENCH / "_common.py").read_text()


def test_a_mirror_in_that_folder_is_checked_out(tmp_path, monkeypatch, git_repo) -> None:  # type: ignore[no-untyped-def]
    source = git_repo({"a.ts": "export const a = 1;\n"})
    mirror = tmp_path / "mirrors" / "acme+tools" / "repo"
    subprocess.run(["git", "clone", "-q", "--mirror", str(source.path), str(mirror)], check=True)
    monkeypatch.setenv("MONODEX_BENCH_MIRRORS", str(tmp_path / "mirrors"))
    common = _common()
    monkeypatch.setattr(common, "WORK", tmp_path / "work")
    work = common.checkout("acme+tools", files=True)
    assert (work / "a.ts").read_text() == "export const a = 1;\n"
