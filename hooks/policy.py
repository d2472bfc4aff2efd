"""Which label moved: hook arguments -> event, branch -> label (pure functions)."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from monodex import names
from monodex.errors import UsageError
from monodex.labels.branchlabels import BranchLabels

HOOKS = ("post-commit", "post-checkout", "post-merge", "post-rewrite")
DEFAULT_TRACK = ("main", "master")


_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")


@dataclass(frozen=True)
class Skip:
    reason: str


@dataclass(frozen=True)
class Head:
    """Where HEAD was while git waited for the hook: the branch that moved and its commit."""

    ref: str | None  # refs/heads/main; None when detached
    commit: str | None  # None: unborn branch, or HEAD could not be read
    rebasing: str | None = None  # head-name of a rebase in progress: the branch it will move


def parse_captured(text: str, rebasing: str) -> Head | None:
    """What the hook script captured: `git rev-parse --git-dir HEAD --symbolic-full-name HEAD`
    (git dir, commit, refs/heads/<branch> or "HEAD" when detached; on an unborn branch git
    prints no commit) and the rebase's head-name. None when the output is not of that shape."""
    lines = text.splitlines()
    if len(lines) == 2 and lines[1] == "HEAD":
        return Head(None, None, rebasing or None)  # unborn: nothing to index yet
    if len(lines) != 3 or not _SHA.match(lines[1]):
        return None
    symbolic = lines[2]
    if symbolic != "HEAD" and not symbolic.startswith("refs/"):
        return None
    return Head(None if symbolic == "HEAD" else symbolic, lines[1], rebasing or None)


def event_applies(hook: str, args: list[str], env: dict[str, str]) -> Skip | None:
    """None when this hook invocation may have moved a branch; else why it did not."""
    if hook not in HOOKS:
        return Skip(f"unknown hook {hook!r}")
    if hook == "post-checkout":
        flag = env.get("PRE_COMMIT_CHECKOUT_TYPE") or (args[2] if len(args) >= 3 else "1")
        if flag != "1":
            return Skip("file checkout")
    return None


def moved_branch(hook: str, rewrite_command: str, head: Head | None) -> tuple[str, str] | Skip:
    """(refs/heads/<branch>, commit) that this hook reports, from HEAD as captured while git
    waited; or why it reports none."""
    if head is None:
        return Skip("the hook could not read HEAD (git rev-parse failed or printed something else)")
    if head.commit is None:
        return Skip("HEAD had no commit (unborn branch)")
    if head.rebasing and hook != "post-rewrite":
        return Skip("rebase in progress (post-rewrite reports its end)")
    if head.ref is None:
        # `git rebase --apply` runs post-rewrite while HEAD is still detached at the rebased tip
        # and moves the branch named in its head-name file right after.
        rebased = head.rebasing or ""
        if hook == "post-rewrite" and rewrite_command == "rebase" and rebased.startswith("refs/heads/"):
            return rebased, head.commit
        return Skip("detached HEAD")
    if not head.ref.startswith("refs/heads/"):
        return Skip(f"HEAD is {head.ref}, not a branch")
    return head.ref, head.commit


def label_for_branch(branch: str, owners: BranchLabels | None = None) -> str | Skip:
    """`feature/Login_Flow` -> `feature/login-flow` (with `owners`, the catalog's mapping: another
    label when another branch holds that one); a Skip when it cannot be mapped."""
    try:
        return owners.label(branch) if owners is not None else names.label_for_branch(branch)
    except UsageError as exc:
        return Skip(exc.problem)


def tracked(
    branch: str,
    label: str,
    *,
    patterns: tuple[str, ...],
    default_branch: str | None,
    indexed: AbstractSet[str],
    removed: AbstractSet[str] = frozenset(),
) -> bool:
    """Default: the default branch and any branch already indexed as a label; plus globs. A label
    the user removed (`labels rm`) is not tracked, whatever else matches (known_labels' rule)."""
    if label in removed:
        return False
    if branch == default_branch or label in indexed:
        return True
    return any(fnmatch.fnmatchcase(branch, p) for p in patterns)


def untracked_reason(branch: str, label: str, *, catalog: str, removed: AbstractSet[str]) -> Skip:
    """Why a hook left the branch alone, with the way to change that."""
    if label in removed:
        return Skip(
            f"label {label!r} was removed with 'monodex labels rm'; crawl it or run "
            f"'monodex catalog track {catalog} GLOB' to refresh it again"
        )
    return Skip(f"branch {branch!r} is not tracked (see 'monodex catalog track {catalog} GLOB')")
