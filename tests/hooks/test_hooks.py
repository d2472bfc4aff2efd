"""Real hooks in real repositories: git runs them, they write spool entries, git never fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from monodex.hooks.policy import Skip, event_applies, label_for_branch
from monodex.hooks.run import decide

from monodex.disk import paths
from monodex.main import main
from monodex.runner.spool import Request, Spool, parse


def entries() -> list[dict[str, str]]:
    spool = Spool(paths.resolve().spool_dir)
    return [parse(p.read_bytes()).__dict__ for p in spool.pending()]


def wait_for(count: int, timeout: float = 15.0) -> list[dict[str, str]]:
    """Hooks run in the background; wait (bounded) until `count` entries have landed."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = entries()
        if len(found) >= count:
            return found
        time.sleep(0.05)
    return entries()


def hook_log() -> list[dict[str, str]]:
    log = paths.resolve().log_dir / "hooks.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def repo(git_repo, tmp_path):  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    return r


@pytest.mark.parametrize(
    ("branch", "label"),
    [
        ("main", "main"),
        ("feature/Login_Flow", "feature/login-flow"),
        ("Release--1.2", "release-1.2"),
        ("fix/@user/bug", "fix/user/bug"),
    ],
)
def test_branch_to_label(branch: str, label: str) -> None:
    assert label_for_branch(branch) == label


def test_unmappable_branch_is_skipped_with_a_reason() -> None:
    result = label_for_branch("_" * 3)
    assert isinstance(result, Skip) and "no valid label" in result.reason


def test_file_checkout_is_not_a_branch_move() -> None:
    assert event_applies("post-checkout", ["a", "b", "0"], {}) == Skip("file checkout")
    assert event_applies("post-checkout", ["a", "b", "1"], {}) is None
    assert event_applies("post-checkout", [], {"PRE_COMMIT_CHECKOUT_TYPE": "0"}) == Skip("file checkout")


def test_commit_on_the_default_branch_enqueues_its_label(repo) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/b.ts", "export const b = 2;\n")
    sha = repo.commit("add b")
    (entry,) = wait_for(1)
    assert (entry["catalog"], entry["label"], entry["commit"], entry["hook"]) == (
        "acme",
        "main",
        sha,
        "post-commit",
    )
    assert entry["ref"] == "refs/heads/main" and entry["repo"] == str(repo.path.resolve())


def test_hooks_log_rotates_as_runner_log_does_and_stays_bounded(repo) -> None:  # type: ignore[no-untyped-def]
    """Issue 35, item 6: hooks.log was append-only (358 hook runs, 358 lines, never trimmed).
    A log at its limit, with its three backups full, takes more hook runs: it rotates, the
    oldest backup goes, and no file passes the limit by more than a line."""
    from monodex.observe.logrotate import BACKUPS, MAX_BYTES

    log = paths.resolve().log_dir / "hooks.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    old = json.dumps({"event": "old", "pad": "x" * 100}) + "\n"
    for n, path in enumerate([log, *(log.with_name(f"hooks.log.{i}") for i in range(1, BACKUPS + 1))]):
        path.write_text(json.dumps({"event": f"generation {n}"}) + "\n" + old * (MAX_BYTES // len(old) - 1))
    for i in range(4):
        repo.write(f"src/n{i}.ts", f"export const n = {i};\n")
        repo.commit(f"n{i}")
    assert len(wait_for(4)) == 4
    files = sorted(log.parent.glob("hooks.log*"))
    deadline = time.monotonic() + 15  # each hook logs after it enqueued
    while time.monotonic() < deadline and sum(f.read_text().count("spool.enqueued") for f in files) < 4:
        time.sleep(0.05)
        files = sorted(log.parent.glob("hooks.log*"))
    assert [f.name for f in files] == ["hooks.log", *(f"hooks.log.{i}" for i in range(1, BACKUPS + 1))]
    assert all(f.stat().st_size < MAX_BYTES + 1000 for f in files)
    assert sum(f.read_text().count("spool.enqueued") for f in files) == 4
    assert log.stat().st_size < MAX_BYTES // 2  # rotated: the hooks' lines start a new file
    assert "generation 3" not in "".join(f.read_text()[:100] for f in files)  # the oldest dropped
    assert log.with_name("hooks.log.1").read_text().startswith('{"event": "generation 0"}')


def test_tracked_feature_branch_checkout_and_untracked_branch(repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    cfg = json.loads(paths.resolve().config_file.read_text())
    cfg["catalogs"]["acme"]["track"] = ["feature/*"]
    paths.resolve().config_file.write_text(json.dumps(cfg))
    repo.git("checkout", "-q", "-b", "feature/Login_Flow")
    (entry,) = wait_for(1)
    assert (entry["label"], entry["hook"]) == ("feature/login-flow", "post-checkout")
    repo.git("checkout", "-q", "-b", "experiment")
    repo.commit("on experiment")
    time.sleep(1.0)
    assert len(entries()) == 1
    assert any("not tracked" in e.get("reason", "") for e in hook_log())


def test_amend_and_rebase_enqueue_once_the_branch_moved(repo) -> None:  # type: ignore[no-untyped-def]
    repo.git("commit", "-q", "--amend", "-m", "amended")
    found = wait_for(2)  # post-commit and post-rewrite of the amend
    assert {e["hook"] for e in found} >= {"post-rewrite"} and all(e["commit"] == repo.head() for e in found)


def test_detached_head_and_unregistered_repos_are_ignored(repo, git_repo) -> None:  # type: ignore[no-untyped-def]
    repo.git("checkout", "-q", "--detach")
    other = git_repo({"x.ts": "x"}, name="other")
    assert decide("post-commit", [], {}, other.path) == Skip("repository is not a registered catalog")
    assert decide("post-checkout", ["a", "b", "1"], {}, repo.path) == Skip("detached HEAD")


def test_broken_config_never_fails_git(repo) -> None:  # type: ignore[no-untyped-def]
    paths.resolve().config_file.write_text("{ broken")
    repo.write("src/c.ts", "export const c = 3;\n")
    proc = subprocess.run(["git", "commit", "-qam", "x"], cwd=repo.path, capture_output=True, text=True)
    repo.git("add", "-A")
    proc = subprocess.run(
        ["git", "commit", "-qm", "still works"], cwd=repo.path, capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stderr == ""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and not any(e["event"] == "hook.error" for e in hook_log()):
        time.sleep(0.05)
    assert any(e["event"] == "hook.error" and "not valid JSON" in e["error"] for e in hook_log())


def test_install_chains_foreign_hooks_is_idempotent_and_uninstall_restores(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "x"}, name="chained")
    marker = tmp_path / "foreign-ran"
    foreign = r.path / ".git" / "hooks" / "post-commit"
    foreign.parent.mkdir(exist_ok=True)
    foreign.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 3\n")
    foreign.chmod(0o755)
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0  # idempotent: legacy not overwritten
    assert "exit 3" in (foreign.parent / "post-commit.legacy").read_text()
    r.write("b.ts", "y")
    r.commit("b")
    assert marker.read_text() == "ran\n"
    assert main(["hooks", "uninstall", "--repo", str(r.path)]) == 0
    assert "exit 3" in foreign.read_text() and not (foreign.parent / "post-checkout").exists()


def test_core_hooks_path_is_respected(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "x"}, name="hookspath")
    r.git("config", "core.hooksPath", ".husky")
    assert main(["hooks", "install", "--repo", str(r.path)]) == 2
    err = capsys.readouterr().err
    assert "core.hooksPath" in err and "belong to husky" in err and "monodex-hook" in err
    assert main(["hooks", "install", "--repo", str(r.path), "--hooks-path"]) == 0
    assert (r.path / ".husky" / "post-commit").exists()


def test_hook_path_imports_nothing_heavy(tmp_path: Path) -> None:
    code = "import sys, monodex.hooks.run; print(','.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    ).stdout
    heavy = (
        "dulwich",
        "onnxruntime",
        "tokenizers",
        "qdrant",
        "tree_sitter",
        "apscheduler",
        "structlog",
        "numpy",
        "subprocess",  # ms to import: the hook reads git's files (monodex/git/files.py)
    )
    assert not [m for m in out.strip().split(",") if m.startswith(heavy)]


def test_pre_commit_framework_runs_the_hook(repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The manifest works for real: pre-commit try-repo on this repository, post-commit stage."""
    root = Path(__file__).resolve().parents[2]
    src = tmp_path / "monodex-src"
    subprocess.run(["git", "clone", "-q", str(root), str(src)], check=True)
    for f in (".pre-commit-hooks.yaml",):  # the working copy's manifest, committed or not
        (src / f).write_text((root / f).read_text())
    subprocess.run(["git", "-C", str(src), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(src), "commit", "-qm", "manifest", "--allow-empty"], check=True)
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
        "MONODEX_HOOK_FOREGROUND": "1",
    }
    proc = subprocess.run(
        [
            str(Path(sys.executable).parent / "pre-commit"),
            "try-repo",
            str(src),
            "monodex",
            "--hook-stage",
            "post-commit",
            "--all-files",
        ],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert any(e["hook"] == "post-commit" and e["label"] == "main" for e in wait_for(1))


def test_a_default_branch_with_a_slash_is_refreshed_by_default(git_repo) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    r.git("checkout", "-q", "-b", "release/v2")
    r.git("update-ref", "refs/remotes/origin/release/v2", r.head())
    r.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/release/v2")
    found = decide("post-commit", [], {}, r.path)
    assert isinstance(found, Request) and (found.label, found.ref) == ("release/v2", "refs/heads/release/v2")
