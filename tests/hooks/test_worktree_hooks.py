"""Issue 21, item 2: hooks installed once fire in every linked worktree and map it to its catalog
through the repository's common git dir (before: "repository is not a registered catalog")."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from monodex.hooks.run import decide

from monodex.disk import paths
from monodex.main import main
from monodex.runner.spool import Spool, parse


def entries() -> list[dict[str, str]]:
    return [parse(p.read_bytes()).__dict__ for p in Spool(paths.resolve().spool_dir).pending()]


def entry_for(commit: str, timeout: float = 15.0) -> dict[str, str] | None:
    """The spool entry for `commit` (hooks write in the background: wait, bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [e for e in entries() if e["commit"] == commit]
        if found:
            return found[0]
        time.sleep(0.05)
    return None


def hook_log() -> list[dict[str, str]]:
    log = paths.resolve().log_dir / "hooks.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def repo(git_repo):  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    cfg = json.loads(paths.resolve().config_file.read_text())
    cfg["catalogs"]["acme"]["track"] = ["feature-*"]
    paths.resolve().config_file.write_text(json.dumps(cfg))
    return r


def _commit(where: Path, name: str) -> str:
    (where / "src" / name).write_text(f"export const x = '{name}';\n")
    subprocess.run(["git", "add", "-A"], cwd=where, check=True)
    proc = subprocess.run(["git", "commit", "-qm", name], cwd=where, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""  # the hook never fails nor talks to git
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_commit_in_a_linked_worktree_queues_its_branch_label(repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", str(wt), "-b", "feature-x")
    sha = _commit(wt, "b.ts")
    entry = entry_for(sha)
    assert entry is not None and (entry["catalog"], entry["label"]) == ("acme", "feature-x"), hook_log()
    assert not any("not a registered catalog" in e.get("reason", "") for e in hook_log())


def test_a_worktree_on_main_and_a_subfolder_map_to_the_catalog(repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo.git("checkout", "-q", "-b", "other")
    wt = tmp_path / "wt-main"
    repo.git("worktree", "add", "-q", str(wt), "main")
    decided = decide("post-commit", [], {}, wt / "src")
    assert not hasattr(decided, "reason"), decided
    assert (decided.catalog, decided.label) == ("acme", "main")  # type: ignore[union-attr]
    entry = entry_for(_commit(wt, "c.ts"))
    assert entry is not None and entry["label"] == "main", hook_log()


def test_an_unregistered_repository_with_worktrees_is_still_ignored(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    other = git_repo({"x.ts": "x"}, name="other")
    other.git("worktree", "add", "-q", str(tmp_path / "owt"), "-b", "b")
    skipped = decide("post-commit", [], {}, tmp_path / "owt")
    assert getattr(skipped, "reason", "") == "repository is not a registered catalog"
