"""The freshness line: whether an answer reflects the code, in one line (a search's, each label's
of a search across labels, status's)."""

from __future__ import annotations

import time

from monodex.observe import progress
from monodex.schema.search import Freshness


def freshness_line(f: Freshness) -> str:
    """One line on whether the answer reflects the code, for people and text-only clients."""
    at = (f.get("indexed_commit") or "")[:12] or "(working dir)"
    branch = f"branch {f.get('branch')}"
    if f.get("label") and f["label"] != f.get("branch"):  # which label answered for that branch
        branch += f" (label {f['label']})"
    if f.get("fresh") is True:
        text = f"index at {at}, fresh with {branch}"
    elif f.get("fresh") is False:
        text = f"index at {at}, STALE: {branch} is at {str(f['branch_commit'])[:12]}"
        text += "; a refresh is pending" if f.get("refresh_pending") else "; no refresh queued"
    else:
        text = f"index at {at}" + ("" if f.get("complete", True) else " (refresh in progress)")
    if f.get("worktree"):  # which checkout the answer is for, and what is checked out there
        on = f"branch {f['branch']}" if f.get("branch") else "detached HEAD"
        text = f"worktree {f['worktree']} ({on}): {text}"
    if f.get("refresh_error"):
        text += f"; last refresh failed: {f['refresh_error'].splitlines()[0]}"
    coverage = f.get("dense_coverage")
    if coverage is not None and coverage < 1.0:
        text += f"; dense vectors {progress.percent(coverage)} done (the rest found by their words)"
    overlay = f.get("overlay")
    if overlay and overlay.get("applied"):
        text += f"; with {overlay['files']} uncommitted files of {overlay['worktree']}"
        text += f" ({overlay['paths']} changed paths)" if overlay["paths"] != overlay["files"] else ""
    wait = f.get("wait")
    gone = f.get("branch_gone")
    if gone:
        since = f" since {day(when)}" if (when := gone["since"]) else ""
        text += f"; branch {gone['branch']} is gone{since}: the label keeps its last commit"
    elif f.get("fresh") is None and f.get("source_kind") == "git-commit" and wait and not f.get("problem"):
        text += "; no branch maps to this label (deleted, or a tag's or a commit's label)"
    elif wait and not wait["reached"]:
        text += f" (waited {wait['waited_seconds']:.1f} s of {wait['seconds']:g} s for it)"
    return text


def day(unix: float) -> str:
    """A time in UTC to the minute: when a branch went, when its label goes."""
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(unix))
