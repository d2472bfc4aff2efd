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


def _stand_in_venv(tmp_path: Path, *, pip_fails: bool = False) -> Path:
    """A venv whose python and pytest report their arguments on stderr, as pip's warnings go
    there (a real install downloads ~1 GB); its pip fails when asked to."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    for tool in ("python", "pytest"):
        script = venv / "bin" / tool
        fail = 'case "$*" in *"pip install"*) echo "ERROR: no matching distribution" >&2; exit 1;; esac\n'
        script.write_text(f'#!/bin/sh\necho "{tool} $*" >&2\n' + (fail if pip_fails else ""))
        script.chmod(0o755)
    return venv


def test_the_install_says_what_the_silent_minute_is_for(tmp_path: Path) -> None:
    """The install takes about a minute: one line on stderr says so, and nothing else (pip's and
    setuptools' warnings, ~45 lines on a new user's screen, go to the venv's install.log)."""
    venv = _stand_in_venv(tmp_path)
    first = _dev("test", "--version", env=_env(MONODEX_VENV=str(venv)))
    assert first.returncode == 0, first.stderr
    lines = first.stderr.splitlines()
    assert lines[:1] == [f"installing monodex into {venv} (first run, ~1 min)..."]
    assert not [line for line in lines if "pip" in line] and lines[-1] == "pytest --version"
    assert "python -m pip install" in (venv / "install.log").read_text()
    again = _dev("test", "--version", env=_env(MONODEX_VENV=str(venv)))
    assert again.stderr.splitlines() == ["pytest --version"]  # installed: straight to the tests


def test_a_failed_install_shows_what_pip_said_and_where_the_log_is(tmp_path: Path) -> None:
    venv = _stand_in_venv(tmp_path, pip_fails=True)
    done = _dev("test", "--version", env=_env(MONODEX_VENV=str(venv)))
    assert done.returncode == 1
    assert "ERROR: no matching distribution" in done.stderr
    assert f"installing monodex into {venv} failed (the whole output: {venv}/install.log)" in done.stderr
    assert "pytest --version" not in done.stderr  # the tests never ran on a broken install


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
