"""The hook entry point: decide which label moved and write one spool entry. Exits 0 always.

Direct hooks run it in the background (`&` in the hook script); under the pre-commit framework
it forks and returns at once. Either way git never waits for more than a process start.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from monodex.hooks import gitdir
from monodex.hooks.policy import Skip, event_applies, label_for_branch, tracked

from monodex import config, known_labels, paths
from monodex.spool import Request, Spool


def _log(event: str, **fields: Any) -> None:
    try:
        log_dir = paths.resolve().log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        line = {"event": event, "at": time.time(), "pid": os.getpid(), **fields}
        with open(log_dir / "hooks.log", "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")
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


def _default_branch(dirs: gitdir.GitDirs) -> str | None:
    remote = dirs.common_dir / "refs" / "remotes" / "origin" / "HEAD"
    if remote.is_file():
        text = remote.read_text().strip()
        if text.startswith("ref:"):
            return text.rsplit("/", 1)[-1]
    for name in ("main", "master"):
        if gitdir.read_ref(dirs, f"refs/heads/{name}"):
            return name
    return None


def decide(hook: str, args: list[str], env: dict[str, str], cwd: Path) -> Request | Skip:
    """The whole decision, without side effects: a request to enqueue, or why not."""
    skip = event_applies(hook, args, env)
    if skip:
        return skip
    dirs = gitdir.find(cwd)
    if dirs is None:
        return Skip("not inside a git repository")
    if gitdir.rebase_in_progress(dirs):
        return Skip("rebase in progress (post-rewrite reports its end)")
    ref, commit = gitdir.head(dirs)
    if ref is None or not ref.startswith("refs/heads/") or not commit:
        return Skip("detached HEAD")
    p = paths.resolve()
    cfg = config.load(p)
    catalog = next((c for c in cfg.catalogs.values() if c.path.resolve() == dirs.worktree), None)
    if catalog is None:
        return Skip("repository is not a registered catalog")
    branch = ref.removeprefix("refs/heads/")
    label = label_for_branch(branch)
    if isinstance(label, Skip):
        return label
    indexed = known_labels.read(p.state_dir, catalog.name)
    if not tracked(
        branch, label, patterns=catalog.track, default_branch=_default_branch(dirs), indexed=indexed
    ):
        return Skip(f"branch {branch!r} is not tracked (see catalogs.{catalog.name}.track)")
    return Request(
        catalog=catalog.name,
        label=label,
        repo=str(dirs.worktree),
        ref=ref,
        commit=commit,
        hook=hook,
        created_at=time.time(),
    )


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


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        paths.private()  # the spool and hooks.log it may create
        if args[:1] == ["--pre-commit"]:
            hook, args = _pre_commit_hook(dict(os.environ)), args[1:]
        else:
            hook, args = (args[0] if args else ""), args[1:]
        if not _detach():
            return 0
        result = decide(hook, args, dict(os.environ), Path.cwd())
        if isinstance(result, Skip):
            _log("hook.skipped", hook=hook, reason=result.reason)
        else:
            Spool(paths.resolve().spool_dir).enqueue(result)
            _log("spool.enqueued", hook=hook, label=result.key, commit=result.commit)
    except BaseException as exc:  # noqa: BLE001 - a hook never fails a git command
        _log("hook.error", error=f"{type(exc).__name__}: {exc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
