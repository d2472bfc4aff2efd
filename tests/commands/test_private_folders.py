"""monodex's folders hold the indexed code's text: only their owner may read them (issue 12, item 9)."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from monodex.disk import paths
from monodex.main import main


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _shared(root: Path) -> list[str]:
    """Everything under root that its group or others may read, write or enter."""
    return [f"{p} {_mode(p):o}" for p in [root, *root.rglob("*")] if _mode(p) & 0o077]


@pytest.fixture
def fresh_xdg(isolated_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """XDG base folders that do not exist yet: monodex creates them (and their parents)."""
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        monkeypatch.setenv(var, str(isolated_env / "fresh" / sub / "base"))
    return isolated_env / "fresh"


def test_config_data_and_state_folders_and_files_are_private(fresh_xdg, git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD"]) == 0
    p = paths.resolve()
    for folder in (p.config_dir, p.data_dir, p.state_dir):
        assert _mode(folder) == 0o700, folder
        assert _mode(folder.parent) == 0o700, f"XDG says: create a missing base folder 0700 ({folder.parent})"
    assert p.shard_dir.is_dir() and p.context_file.exists()
    assert _shared(fresh_xdg) == []  # the Qdrant Edge shard's files included


def test_a_hook_creates_the_spool_private(fresh_xdg, git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert main(["hooks", "install", "--repo", str(repo.path)]) == 0
    repo.write("src/b.ts", "export const b = 2;\n")
    repo.commit("add b")
    spool_new = paths.resolve().spool_dir / "new"
    deadline = time.monotonic() + 15
    while not list(spool_new.glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(spool_new.glob("*.json")), "the hook wrote no spool entry"
    assert _shared(paths.resolve().state_dir) == []


def test_doctor_warns_about_a_folder_others_can_read(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    found = run_json("doctor", "--json")[1]
    folders = next(c for c in found["checks"] if c["check"] == "folders")
    assert folders["level"] == "ok", folders
    p.data_dir.chmod(0o755)  # as monodex versions before this one created it
    code, found, _ = run_json("doctor", "--json")
    folders = next(c for c in found["checks"] if c["check"] == "folders")
    assert code == 0 and folders["level"] == "warn"
    assert str(p.data_dir) in folders["detail"] and "755" in folders["detail"]
    assert folders["hint"] == f"chmod 700 {p.data_dir}"
