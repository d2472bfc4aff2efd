"""Issue 12 item 1: a commit reaches its branch's label even when the user switches branch at once.

The hooks run in the background, so these tests wait (bounded) until every hook invocation has
logged its one line in hooks.log, then look at the spool or drain it through the real indexer.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from monodex.hooks.install import MARKER
from monodex.hooks.policy import Head, Skip
from monodex.hooks.run import decide
from monodex.indexer.ops import background
from monodex.indexer.session import Session
from monodex.scheduler import jobs

from monodex.disk import paths
from monodex.main import main
from monodex.runner.spool import Request, Spool, parse
from monodex.settings import config


def spool() -> Spool:
    return Spool(paths.resolve().spool_dir)


def entries() -> list[dict[str, str]]:
    return [parse(p.read_bytes()).__dict__ for p in spool().pending()]


def hook_log() -> list[dict[str, str]]:
    log = paths.resolve().log_dir / "hooks.log"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def settle(invocations: int, timeout: float = 90.0) -> list[dict[str, str]]:
    """Every hook invocation logs exactly one line (enqueued, skipped or error): wait for all."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and len(hook_log()) < invocations:
        time.sleep(0.05)
    log = hook_log()
    assert len(log) == invocations, log
    return log


def sh(repo, script: str) -> None:  # type: ignore[no-untyped-def]
    """One shell: the second git command starts the moment the first returns, as a user's `&&`."""
    subprocess.run(["sh", "-ec", script], cwd=repo.path, check=True, capture_output=True)


def track(*globs: str) -> None:
    cfg = json.loads(paths.resolve().config_file.read_text())
    cfg["catalogs"]["acme"]["track"] = list(globs)
    paths.resolve().config_file.write_text(json.dumps(cfg))


def labels(capsys) -> dict[str, str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["labels", "--json"]) == 0
    return {r["label"]: r["commit_oid"] for r in json.loads(capsys.readouterr().out)["labels"]}


def drain() -> jobs.DrainReport:
    def run(request: Request) -> dict[str, object]:
        with Session(config.load(paths.resolve()), paths.resolve()) as s:
            return background.refresh_label(s, request)

    return jobs.drain(spool(), run)


@pytest.fixture
def repo(git_repo, capsys):  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 0;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    track("feature/*")
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    capsys.readouterr()
    return r


def test_commit_then_a_new_branch_at_once_still_reaches_main(repo) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/a.ts", "export const a = 1;\n")
    sh(repo, "git add -A && git commit -qm x && git checkout -q -b tmp")
    log = settle(2)  # post-commit (main), post-checkout (tmp: not tracked)
    sha = repo.git("rev-parse", "main")
    assert [(e["label"], e["commit"], e["hook"]) for e in entries()] == [("main", sha, "post-commit")], log


def test_commit_on_a_feature_branch_then_checkout_main_is_queued_for_the_feature(repo) -> None:  # type: ignore[no-untyped-def]
    repo.git("checkout", "-q", "-b", "feature/x")
    settle(1)
    repo.write("src/a.ts", "export const a = 2;\n")
    sh(repo, "git add -A && git commit -qm x && git checkout -q main")
    log = settle(3)
    sha = repo.git("rev-parse", "feature/x")
    queued = [(e["label"], e["ref"], e["hook"]) for e in entries() if e["commit"] == sha]
    assert queued == [("feature/x", "refs/heads/feature/x", "post-commit")], log
    assert all(e["label"] == "feature/x" for e in entries() if e["hook"] == "post-commit"), log


def test_rebase_with_the_apply_backend_queues_the_rebased_branch(repo) -> None:  # type: ignore[no-untyped-def]
    """`git rebase --apply` runs post-rewrite while HEAD is still detached and moves the branch
    just after: the branch comes from the rebase's own head-name file, read while git waits."""
    repo.git("checkout", "-q", "-b", "feature/r")
    repo.write("src/r.ts", "export const r = 1;\n")
    repo.commit("r")
    repo.git("checkout", "-q", "main")
    repo.write("src/m.ts", "export const m = 1;\n")
    repo.commit("m")
    repo.git("checkout", "-q", "feature/r")
    before = len(settle(5))
    repo.git("rebase", "-q", "--apply", "main")
    tip = repo.git("rev-parse", "feature/r")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not any(e["commit"] == tip for e in entries()):
        time.sleep(0.05)
    rebased = [(e["label"], e["hook"]) for e in entries() if e["commit"] == tip]
    assert rebased == [("feature/r", "post-rewrite")], [
        (e["hook"], e.get("reason")) for e in hook_log()[before:]
    ]


def test_the_label_ends_at_the_branchs_last_commit_whatever_order_the_hooks_wrote(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """Two background hook processes may write their entries in either order: the runner refreshes
    the label to where its branch is when it drains, and to the request's commit once the branch
    is gone."""
    r = git_repo({"src/a.ts": "export const a = 0;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0  # no hooks: the test writes the spool
    r.write("src/a.ts", "export const a = 1;\n")
    first = r.commit("first")
    r.write("src/a.ts", "export const a = 2;\n")
    last = r.commit("last")
    r.git("branch", "feature/gone", first)
    r.git("branch", "-D", "feature/gone")
    base = {"catalog": "acme", "repo": str(r.path), "hook": "post-commit"}
    spool().enqueue(Request(**base, label="main", ref="refs/heads/main", commit=last, created_at=1.0))
    spool().enqueue(Request(**base, label="main", ref="refs/heads/main", commit=first, created_at=2.0))
    spool().enqueue(
        Request(**base, label="feature/gone", ref="refs/heads/feature/gone", commit=first, created_at=3.0)
    )
    report = drain()
    assert report.failed == [] and spool().pending() == []
    assert labels(capsys) == {"main": last, "feature/gone": first}


def test_the_hook_decides_from_the_head_captured_while_git_waited(repo) -> None:  # type: ignore[no-untyped-def]
    sha = repo.head()
    at_commit = Head(ref="refs/heads/main", commit=sha)
    repo.git("checkout", "-q", "-b", "tmp")  # what the user did right after
    request = decide("post-commit", [], {}, repo.path, head=at_commit)
    assert not isinstance(request, Skip) and (request.label, request.commit) == ("main", sha)
    rebasing = {"rebasing": "refs/heads/feature/r"}
    cases = [
        (Head(ref=None, commit=None), "post-commit", [], "HEAD had no commit"),
        (Head(ref=None, commit=sha), "post-commit", [], "detached HEAD"),
        (Head(ref=None, commit=sha, **rebasing), "post-commit", [], "rebase in progress"),
        (Head(ref=None, commit=sha, **rebasing), "post-rewrite", ["amend"], "detached HEAD"),
    ]
    for head, hook, args, reason in cases:
        result = decide(hook, args, {}, repo.path, head=head)
        assert isinstance(result, Skip) and reason in result.reason, (head, result)
    result = decide("post-rewrite", ["rebase"], {}, repo.path, head=Head(ref=None, commit=sha, **rebasing))
    assert not isinstance(result, Skip) and (result.label, result.commit) == ("feature/r", sha)


def test_a_hook_that_could_not_read_head_skips_with_a_reason_and_git_succeeds(repo) -> None:  # type: ignore[no-untyped-def]
    """The captured HEAD comes from the hook script through MONODEX_HEAD; garbage there is a skip."""
    hook = Path(repo.git("rev-parse", "--git-path", "hooks/post-commit"))
    hook = hook if hook.is_absolute() else repo.path / hook
    script = hook.read_text()
    hook.write_text(
        script.replace('if [ -n "$commit" ]; then', 'commit=garbage\nif [ -n "$commit" ]; then', 1)
    )
    repo.write("src/a.ts", "export const a = 3;\n")
    proc = subprocess.run(["git", "commit", "-qam", "x"], cwd=repo.path, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    (line,) = settle(1)
    assert line["event"] == "hook.skipped" and "could not read HEAD" in line["reason"]


def test_hooks_install_upgrades_v1_hooks_in_place_and_doctor_asks_for_it(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "x"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    hooks = r.path / ".git" / "hooks"
    v1 = "#!/bin/sh\n# monodex-hook v1 (written by 'monodex hooks install')\npython -m monodex.hooks.run post-commit &\n"
    (hooks / "post-commit").write_text(v1)
    capsys.readouterr()
    main(["doctor", "--json"])
    check = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["check"] == "catalog acme")
    assert check["level"] == "warn" and "earlier monodex (post-commit)" in check["detail"], check
    assert check["hint"] == f"monodex hooks install --repo {r.path}"
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    assert MARKER in (hooks / "post-commit").read_text() and MARKER != "# monodex-hook v1"
    assert not (hooks / "post-commit.legacy").exists()  # ours, so replaced, not chained
    assert main(["hooks", "uninstall", "--repo", str(r.path)]) == 0
    assert not (hooks / "post-commit").exists()


def test_burst_of_commits_with_immediate_switches_every_label_at_its_branch_tip(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """60 commits on main and 3 branches x 5 commits, each followed at once by a checkout; the
    last main commit is followed at once by a new untracked branch."""
    branches = ("feature/a", "feature/b", "feature/c")
    for b in branches:
        repo.git("branch", b)
    lines, invocations = [], 0
    for i in range(60):
        lines.append(f"echo 'export const m = {i};' > src/a.ts && git commit -qam m{i}")
        invocations += 1
        if i % 12 == 11:  # 5 rounds over the branches
            for b in branches:
                name = b.replace("/", "_")
                lines.append(
                    f"git checkout -q {b} && echo 'export const {name} = {i};' > src/{name}.ts"
                    f" && git add -A && git commit -qm {name}{i} && git checkout -q main"
                )
                invocations += 3
    lines.append("git checkout -q -b tmp")
    invocations += 1
    sh(repo, "\n".join(lines))
    settle(invocations, timeout=180)
    report = drain()
    assert report.failed == [] and spool().pending() == []
    want = {label: repo.git("rev-parse", label) for label in ("main", *branches)}
    assert labels(capsys) == want


def test_a_branch_whose_ref_is_packed_is_captured_through_git(repo) -> None:  # type: ignore[no-untyped-def]
    """The hook script reads loose refs itself; a packed ref (after `git gc`) has no file, so it
    asks git instead, and still sees the branch checked out a moment before the next command."""
    repo.git("branch", "feature/p")
    repo.git("pack-refs", "--all", "--prune")
    assert not (repo.path / ".git" / "refs" / "heads" / "feature" / "p").exists()
    sh(repo, "git checkout -q feature/p && git checkout -q main")
    log = settle(2)
    sha = repo.git("rev-parse", "feature/p")
    assert sorted((e["label"], e["commit"]) for e in entries()) == [("feature/p", sha), ("main", sha)], (
        log,
        entries(),
    )


def test_a_linked_worktree_is_captured_from_its_own_head(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """In a linked worktree `.git` is a file naming the worktree's git dir, and branch refs live in
    the common dir it points to: the script follows both."""
    other = repo.path.parent / "acme-wt"
    repo.git("worktree", "add", "-q", "-b", "feature/w", str(other))
    assert main(["catalog", "add", "acme-wt", str(other)]) == 0
    assert main(["catalog", "track", "acme-wt", "feature/*"]) == 0
    before = len(settle(1))  # the worktree's own post-checkout
    (other / "src" / "w.ts").write_text("export const w = 1;\n")
    subprocess.run(
        ["sh", "-ec", "git add -A && git commit -qm w && git checkout -q --detach"],
        cwd=other,
        check=True,
        capture_output=True,
    )
    log = settle(before + 2)
    sha = repo.git("rev-parse", "feature/w")
    queued = [(e["catalog"], e["label"], e["hook"]) for e in entries() if e["commit"] == sha]
    assert ("acme-wt", "feature/w", "post-commit") in queued, [(x["hook"], x.get("reason")) for x in log]
