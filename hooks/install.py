"""Install hook scripts the way pre-commit does: a marker line, the absolute interpreter, an
existing foreign hook kept as <hook>.legacy and chained, core.hooksPath respected. A hook another
manager generated (hooks/managers.py) is never moved aside: install refuses and says how to run
monodex through that manager."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from monodex.hooks import managers
from monodex.hooks.policy import HOOKS

from monodex.errors import UsageError
from monodex.git import files

MARKER = "# monodex-hook v2"
# Earlier versions of our script: still ours (replaced by install, removed by uninstall).
OLD_MARKERS = ("# monodex-hook v1",)

TEMPLATE = """#!/bin/sh
{marker} (written by 'monodex hooks install'; remove with 'monodex hooks uninstall')
status=0
if [ -x "$0.legacy" ]; then "$0.legacy" "$@" || status=$?; fi
# Which branch moved, and to which commit, is read now, while git waits: once git returns the
# user may already be on another branch. From the files with shell built-ins when they are plain
# (a fork of git costs more than the rest of this script, bench/hooks.py); else git is asked.
# The capture has the shape of `git rev-parse --git-dir HEAD --symbolic-full-name HEAD`.
gitdir=${{GIT_DIR:-.git}} head= commit= ref= common=
if [ -f "$gitdir" ]; then read -r gitdir <"$gitdir"; gitdir=${{gitdir#gitdir: }}; fi
[ -r "$gitdir/HEAD" ] && read -r head <"$gitdir/HEAD"
common=$gitdir
if [ -r "$gitdir/commondir" ]; then
  read -r common <"$gitdir/commondir"
  case $common in /*) ;; *) common=$gitdir/$common ;; esac
fi
case $head in
  "ref: refs/heads/.invalid") ;;
  "ref: refs/heads/"*) ref=${{head#ref: }}; [ -r "$common/$ref" ] && read -r commit <"$common/$ref" ;;
esac
if [ -n "$commit" ]; then
  head="$gitdir
$commit
$ref"
else  # detached, packed or reftable refs, an unborn branch: git knows
  head=$(git rev-parse --git-dir HEAD --symbolic-full-name HEAD 2>/dev/null)
  gitdir=${{head%%
*}}
fi
rebasing=
for d in rebase-merge rebase-apply; do
  if [ -r "$gitdir/$d/head-name" ]; then read -r rebasing <"$gitdir/$d/head-name"; fi
done
# The rest in the background: git never waits for the index; the entry point exits 0 on every error.
MONODEX_HEAD="$head" MONODEX_REBASING="$rebasing" \\
  {python} -m monodex.hooks.run {hook} "$@" </dev/null >/dev/null 2>&1 &
exit $status
"""


@dataclass(frozen=True)
class Installed:
    hooks_dir: Path
    written: tuple[str, ...]
    chained: tuple[str, ...]  # foreign hooks kept as <hook>.legacy


def hooks_dir(repo: Path, *, allow_hooks_path: bool = False) -> Path:
    dirs = files.find(repo.resolve())
    if dirs is None:
        raise UsageError(f"{repo} is not inside a git repository", "pass --repo /path/to/repo")
    configured = files.hooks_path(dirs)
    if configured and not allow_hooks_path:
        tool = next((name for name, _ in managers.SIGNS if name in configured), "")
        raise UsageError(
            f"core.hooksPath is set to {configured!r}; the hooks there belong to "
            + (f"{tool}" if tool else "another tool"),
            (managers.advice(tool) if tool else "add monodex through that tool (docs/runner.md)")
            + ", or pass --hooks-path to install into that folder anyway",
        )
    if configured:
        path = Path(os.path.expanduser(configured))
        return path if path.is_absolute() else dirs.worktree / path
    return dirs.common_dir / "hooks"


def _marker(path: Path) -> str:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return ""
    return next((m for m in (MARKER, *OLD_MARKERS) if m in text), "")


def _ours(path: Path) -> bool:
    return bool(_marker(path))


def outdated(repo: Path) -> tuple[str, ...]:
    """Our hooks in this repository written by an earlier monodex ('monodex hooks install' renews them)."""
    try:
        target = hooks_dir(repo, allow_hooks_path=True)
    except UsageError:
        return ()
    return tuple(h for h in HOOKS if _marker(target / h) in OLD_MARKERS)


@dataclass(frozen=True)
class Reach:
    """How monodex hooks reach a repository: `how` is "direct", "pre-commit" or "" (they do not);
    `problem` and `hint` say what is wrong with that (empty when nothing is)."""

    how: str
    problem: str = ""
    hint: str = ""
    level: str = "error"  # of the problem, for doctor


def reach(repo: Path) -> Reach:
    dirs = files.find(repo.resolve())
    try:
        target = hooks_dir(repo, allow_hooks_path=True)
    except UsageError:
        return Reach("")
    assert dirs is not None  # hooks_dir found it
    listed = managers.in_pre_commit_config(dirs.worktree)
    if all(_ours(target / hook) for hook in HOOKS):
        moved = [h for h in HOOKS if managers.manager(target / f"{h}.legacy") == "pre-commit"]
        if moved:
            return Reach(
                "direct",
                f"pre-commit's {', '.join(moved)} hooks were moved to .legacy: pre-commit reports a bug on "
                "every git operation" + (" and each event is queued twice" if listed else ""),
                f"monodex hooks uninstall --repo {dirs.worktree} (restores them); then "
                + managers.advice("pre-commit"),
            )
        return Reach("direct")
    beside = [h for h in HOOKS if _ours(target / f"{h}.legacy")]  # pre-commit chained ours
    if beside:
        if not listed:
            return Reach("direct")  # run by pre-commit's scripts as their .legacy: fine
        return Reach(
            "pre-commit",
            f"monodex's own {', '.join(beside)} hooks still run as .legacy beside pre-commit's: each "
            "event is queued twice",
            "delete " + " ".join(str(target / f"{h}.legacy") for h in beside),
        )
    if not listed:
        return Reach("")
    missing = [h for h in HOOKS if managers.manager(target / h) != "pre-commit"]
    if missing:
        return Reach(
            "pre-commit",
            f".pre-commit-config.yaml lists monodex but pre-commit's {', '.join(missing)} hooks are not "
            "installed: those git events go unseen",
            f"cd {dirs.worktree} && {managers.PRE_COMMIT_INSTALL}",
            level="warn",
        )
    return Reach("pre-commit")


def installed(repo: Path) -> str:
    """How monodex hooks reach this repository: "direct", "pre-commit", or "" when they do not."""
    return reach(repo).how


def _refuse_managed(repo: Path, target: Path) -> None:
    """Another manager owns these hooks: say how to add monodex to it, never move its scripts."""
    owned = {h: m for h in HOOKS if not _ours(target / h) and (m := managers.manager(target / h))}
    if not owned:
        return
    name = next(iter(owned.values()))
    dirs = files.find(repo.resolve())
    if name == "pre-commit" and dirs is not None and managers.in_pre_commit_config(dirs.worktree):
        raise UsageError(
            "monodex already runs through pre-commit here (.pre-commit-config.yaml lists it): "
            "its own hooks beside pre-commit's would queue every git event twice",
            "nothing to install; 'monodex doctor' shows how the hooks run",
        )
    raise UsageError(
        f"the {', '.join(owned)} hooks in {target} are {name}'s: monodex does not move them aside",
        managers.advice(name),
    )


def install(repo: Path, *, allow_hooks_path: bool = False, python: str | None = None) -> Installed:
    target = hooks_dir(repo, allow_hooks_path=allow_hooks_path)
    _refuse_managed(repo, target)
    target.mkdir(parents=True, exist_ok=True)
    interpreter = shlex.quote(python or sys.executable)
    chained = []
    for hook in HOOKS:
        path = target / hook
        if path.exists() and not _ours(path):
            os.replace(path, target / f"{hook}.legacy")
            chained.append(hook)
        path.write_text(TEMPLATE.format(marker=MARKER, python=interpreter, hook=hook))
        path.chmod(0o755)
    return Installed(target, HOOKS, tuple(chained))


def uninstall(repo: Path, *, allow_hooks_path: bool = False) -> Installed:
    target = hooks_dir(repo, allow_hooks_path=allow_hooks_path)
    removed, restored = [], []
    for hook in HOOKS:
        path = target / hook
        if path.exists() and _ours(path):
            path.unlink()
            removed.append(hook)
            legacy = target / f"{hook}.legacy"
            if legacy.exists():
                os.replace(legacy, path)
                restored.append(hook)
    return Installed(target, tuple(removed), tuple(restored))
