"""The hook entry point: decide which label moved and write one spool entry. Exits 0 always.

Which branch moved, and to which commit, is read while git still waits for the hook: the direct
hook script runs `git rev-parse` before it backgrounds this module (MONODEX_HEAD), and under the
pre-commit framework main() reads HEAD before it forks. Read later, HEAD may already be another
branch (`git commit && git checkout -b tmp`). Everything else happens after git has returned.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from monodex.hooks.policy import (
    Head,
    Skip,
    event_applies,
    label_for_branch,
    moved_branch,
    parse_captured,
    tracked,
    untracked_reason,
)

from monodex import names
from monodex.disk import paths
from monodex.git import files
from monodex.labels import branchlabels, known_labels, standing
from monodex.observe import logrotate
from monodex.runner.spool import Request, Spool, refresh_request
from monodex.settings import config


def _log(event: str, **fields: Any) -> None:
    try:
        log_dir = paths.resolve().log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        line = {"event": event, "at": time.time(), "pid": os.getpid(), **fields}
        logrotate.append(log_dir / "hooks.log", json.dumps(line) + "\n")  # bounded, as runner.log
    except Exception:  # noqa: BLE001 - logging must never fail the hook either
        pass


def _pre_commit_hook(env: dict[str, str]) -> str:
    if "PRE_COMMIT_CHECKOUT_TYPE" in env:
        return "post-checkout"
    if "PRE_COMMIT_REWRITE_COMMAND" in env:
        return "post-rewrite"
    if "PRE_COMMIT_IS_SQUASH_MERGE" in env:
        return "post-merge"
    return "post-commit"


def _default_branch(dirs: files.GitDirs) -> str | None:
    has = lambda name: bool(files.read_ref(dirs, f"refs/heads/{name}"))  # noqa: E731
    return names.default_branch(files.origin_head(dirs), has)


def capture(dirs: files.GitDirs) -> Head:
    """HEAD from the files, in this process (the pre-commit path: before it forks)."""
    ref, commit = files.head(dirs)
    return Head(ref, commit, files.rebase_head_name(dirs.git_dir))


REF_WAIT_SECONDS = 10.0


def captured_head(env: dict[str, str]) -> Head | Skip | None:
    """HEAD as the hook script captured it; None when it captured nothing (a v1 hook script, the
    pre-commit framework, a run by hand)."""
    if "MONODEX_HEAD" not in env:
        return None
    text = env["MONODEX_HEAD"]
    head = parse_captured(text, env.get("MONODEX_REBASING", ""))
    if head is None:
        return Skip(f"the hook could not read HEAD (git rev-parse printed {text[:200]!r})")
    return head


def _rewrite_command(hook: str, args: list[str], env: dict[str, str]) -> str:
    if hook != "post-rewrite":
        return ""
    return env.get("PRE_COMMIT_REWRITE_COMMAND") or (args[0] if args else "")


def decide(
    hook: str, args: list[str], env: dict[str, str], cwd: Path, head: Head | Skip | None = None
) -> Request | Skip:
    """The whole decision, without side effects: a request to enqueue, or why not. `head` is HEAD
    as captured while git waited; None reads it now."""
    skip = event_applies(hook, args, env)
    if skip:
        return skip
    if isinstance(head, Skip):
        return head
    dirs = files.find(cwd)
    if dirs is None:
        return Skip("not inside a git repository")
    moved = moved_branch(hook, _rewrite_command(hook, args, env), head or capture(dirs))
    if isinstance(moved, Skip):
        return moved
    ref, commit = moved
    p = paths.resolve()
    cfg = config.load(p)
    # by the common git dir: the main checkout, every linked worktree and every subfolder share it
    catalogs = {n: c.path for n, c in cfg.catalogs.items()}
    name = standing.catalog_of(dirs.common_dir, catalogs, worktree=dirs.worktree)
    catalog = cfg.catalogs[name] if name is not None else None
    if catalog is None:
        return Skip("repository is not a registered catalog")
    branch = ref.removeprefix("refs/heads/")
    owners = branchlabels.load(p.state_dir, catalog.name, files.branches(dirs) or [branch])
    label = label_for_branch(branch, owners)
    if isinstance(label, Skip):
        return label
    indexed = known_labels.read(p.state_dir, catalog.name)
    removed = known_labels.removed(p.state_dir, catalog.name)
    default = _default_branch(dirs)
    if not tracked(
        branch, label, patterns=catalog.track, default_branch=default, indexed=indexed, removed=removed
    ):
        return untracked_reason(branch, label, catalog=catalog.name, removed=removed)
    return refresh_request(
        catalog.name, label, repo=dirs.worktree, ref=ref, commit=commit, hook=hook, at=time.time()
    )


def _claimed(request: Request, cwd: Path) -> Request:
    """The request with its branch's label claimed (branchlabels.py): another hook that maps a
    branch alike from now on gets another label. Under the claims' lock, so it may differ from
    the one decided a moment before, when another hook claimed that in between."""
    dirs = files.find(cwd)
    branch = request.ref.removeprefix("refs/heads/")
    heads = (files.branches(dirs) if dirs is not None else []) or [branch]
    label = branchlabels.claim(paths.resolve().state_dir, request.catalog, branch, heads)
    return dataclasses.replace(request, label=label) if label != request.label else request


def _detach() -> bool:
    """Fork: the parent returns to git at once; True in the child that carries on."""
    if os.environ.get("MONODEX_HOOK_FOREGROUND") == "1" or not hasattr(os, "fork"):
        return True
    if os.fork() != 0:
        return False
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    return True


def _await_ref(cwd: Path, ref: str, commit: str) -> None:
    """Wait (bounded) until git has moved `ref` to `commit`: after `git rebase --apply`'s
    post-rewrite, so a runner that resolves the branch at drain time finds it moved."""
    dirs = files.find(cwd)
    deadline = time.monotonic() + REF_WAIT_SECONDS
    while dirs is not None and time.monotonic() < deadline:
        if files.read_ref(dirs, ref) == commit:
            return
        time.sleep(0.02)


def _rebased_branch(cwd: Path, commit: str) -> str | None:
    """`git rebase --apply` runs post-rewrite with HEAD detached and leaves no head-name behind:
    which branch it moves shows only once it has finished, in HEAD's reflog. Wait (bounded)."""
    dirs = files.find(cwd)
    deadline = time.monotonic() + REF_WAIT_SECONDS
    while dirs is not None and time.monotonic() < deadline:
        branch = files.returned_to(dirs, commit)
        if branch:
            return branch
        time.sleep(0.02)
    return None


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        env, cwd = dict(os.environ), Path.cwd()
        paths.private()  # the spool and hooks.log it may create
        if args[:1] == ["--pre-commit"]:
            hook, args = _pre_commit_hook(env), args[1:]
        else:
            hook, args = (args[0] if args else ""), args[1:]
        head = captured_head(env)
        if head is None and (dirs := files.find(cwd)) is not None:
            head = capture(dirs)  # before the fork: git is still waiting for us
        if not _detach():
            return 0
        if (
            isinstance(head, Head)
            and head.ref is None
            and head.commit
            and not (head.rebasing or "").startswith("refs/heads/")
            and _rewrite_command(hook, args, env) == "rebase"
        ):
            branch = _rebased_branch(cwd, head.commit)
            head = Head(branch, head.commit) if branch else head
        result = decide(hook, args, env, cwd, head)
        if isinstance(result, Skip):
            _log("hook.skipped", hook=hook, reason=result.reason)
        else:
            if isinstance(head, Head) and head.ref != result.ref:
                _await_ref(cwd, result.ref, result.commit)
            result = _claimed(result, cwd)
            Spool(paths.resolve().spool_dir).enqueue(result)
            _log("spool.enqueued", hook=hook, label=result.key, commit=result.commit)
    except BaseException as exc:  # noqa: BLE001 - a hook never fails a git command
        _log("hook.error", error=f"{type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
