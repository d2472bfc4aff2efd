"""A normal (non-editable) build installs only `monodex`, with its data files."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_wheel_holds_only_the_monodex_package_and_its_data(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    # Every data folder is declared: an undeclared one made setuptools print ~45 lines of "Package
    # would be ignored" on every install, the first thing `./dev demo` showed a new user (issue 35).
    assert "would be ignored" not in built.stdout + built.stderr
    (wheel,) = tmp_path.glob("monodex-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names if not n.startswith("monodex-")}
    assert tops == {"monodex"}
    for expected in (
        "monodex/hooks/__init__.py",
        "monodex/indexer/chunkers/typescript.py",
        "monodex/indexer/git/gitobjects.py",
        "monodex/indexer/points/filters.py",
        "monodex/indexer/write/crawl.py",
        "monodex/indexer/read/search.py",
        "monodex/indexer/upkeep/verify.py",
        "monodex/indexer/embed/model.py",
        "monodex/indexer/store/edge.py",
        "monodex/indexer/models/minilm/tokenizer.json",
        "monodex/indexer/models/minilm/NOTICE",
        "monodex/scheduler/__init__.py",
        "monodex/systemd/__init__.py",
    ):
        assert expected in names
