"""`./dev`, the README's set-up commands, as a new user meets them (issue 35)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from monodex.main import main

ROOT = Path(__file__).resolve().parents[1]


def _env(**extra: str) -> dict[str, str]:
    """This environment (XDG isolated by conftest) with the venv's bin off PATH, as for a new user."""
    venv_bin = str(Path(sys.prefix) / "bin")
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != venv_bin)
    return {**os.environ, "PATH": path, "MONODEX_VENV": sys.prefix, **extra}


def _dev(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(ROOT / "dev"), *args], env=env, capture_output=True, text=True)


def test_the_install_says_what_the_silent_minute_is_for(tmp_path: Path) -> None:
    """pip -q prints nothing for about a minute: a line on stderr says so first, once. The venv is
    a stand-in whose python and pytest report their arguments (a real install downloads ~1 GB)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "pytest"):
        script = venv / "bin" / tool
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >&2\n')
        script.chmod(0o755)
    first = _dev("test", "--version", env=_env(MONODEX_VENV=str(venv)))
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[0] == f"installing monodex into {venv} (first run, ~1 min)..."
    assert lines[1].startswith("python -m pip install")
    again = _dev("test", "--version", env=_env(MONODEX_VENV=str(venv)))
    assert again.stderr.splitlines() == ["pytest --version"]  # installed: straight to the tests


def test_the_demo_indexes_the_default_branch_and_says_how_to_run_monodex(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """A clone whose default branch is `dev` (origin/HEAD), checked out on another branch: the
    demo indexes dev's tip into the label `dev`, never the checkout's HEAD into `main`, and
    says how to run monodex, which is not on PATH."""
    upstream = git_repo(
        {"src/config.py": "def load_config(path):\n    return open(path).read()\n"}, branch="dev"
    )
    clone = upstream.path.parent / "clone"
    upstream.git("clone", "-q", str(upstream.path), str(clone))
    subprocess.run(["git", "checkout", "-q", "-b", "main"], cwd=clone, check=True)
    (clone / "src" / "extra.py").write_text("def only_on_main():\n    return 1\n")
    subprocess.run(["git", "add", "-A"], cwd=clone, check=True)
    subprocess.run(["git", "commit", "-q", "-m", "main only"], cwd=clone, check=True)

    demo = _dev("demo", str(clone), "where is the config loaded", env=_env())
    assert demo.returncode == 0, demo.stderr
    mdx = str(Path(sys.prefix) / "bin" / "monodex")
    assert f"source {sys.prefix}/bin/activate" in demo.stdout and f"{mdx} search" in demo.stdout
    assert "would be ignored" not in demo.stderr
    capsys.readouterr()
    assert main(["labels", "--json"]) == 0
    labels = {r["label"]: r["commit_oid"] for r in json.loads(capsys.readouterr().out)["labels"]}
    assert labels == {"dev": upstream.head()}
