"""A label indexed when a search asks for it: one nobody has indexed yet, from where you stand
(the branch checked out in your worktree, or its detached commit) or with `--fresh`; and the
label of the branch you stand on, caught up to the commit checked out there when it is behind or
elsewhere (a `reset --hard`, a `branch -f`, commits while no runner ran): a search where you
stand never answers from a commit you are not on, unless asked to (`--as-indexed`).

Phase one only: every stored chunk whose content, path and implementation match is reused, so a
branch fresh from main embeds nothing and is searchable in seconds; the chunks of changed files
are found by their words until the runner's fill job (or the next crawl) adds their vectors. With
the runner up, the refresh is queued to it like a hook's (its one refresh path), and waited for.
"""

from __future__ import annotations

import time

from monodex.indexer.follow import freshness, refresh
from monodex.indexer.points import labelmeta
from monodex.indexer.session import Session
from monodex.indexer.write import fill

from monodex import names
from monodex.errors import MonodexError
from monodex.git import refs
from monodex.labels import branchlabels, standing
from monodex.labels.standing import Standing
from monodex.schema.search import Caught, CaughtUp, Freshness, OnDemand, Wait
from monodex.settings.config import Catalog


def source(s: Session, catalog: Catalog, label: str, here: Standing | None) -> tuple[str, str] | None:
    """(ref, commit) the label stands for: the branch checked out where you stand, a local branch
    mapping to it, or the detached commit it names ("HEAD" as ref); None when nothing does."""
    if here is not None and here.commit and here.label() == label:
        return (f"refs/heads/{here.branch}" if here.branch else "HEAD"), here.commit
    short = standing.commit_of_label(label)
    if short is not None:
        full = refs.resolve_commit(catalog.path, short)
        return ("HEAD", full) if full else None
    heads = refs.branch_heads(catalog.path) or {}
    return _ref(branchlabels.load(s.paths.state_dir, catalog.name, heads).tip(label, heads))


def _ref(tip: tuple[str, str] | None) -> tuple[str, str] | None:
    return (f"refs/heads/{tip[0]}", tip[1]) if tip is not None else None


def ensure(
    s: Session, catalog: Catalog, label: str, *, here: Standing | None, seconds: float
) -> tuple[OnDemand, str] | None:
    """Index the label now if it does not exist and something names its commit; what was done
    and a note saying so, or None when the label exists or nothing names it."""
    key = names.label_id(catalog.name, label)
    if labelmeta.read(s.store, key) is not None:
        return None
    found = source(s, catalog, label, here)
    if found is None:
        return None
    ref, commit = found
    facts = _index(s, catalog, label, ref=ref, commit=commit, seconds=seconds)
    what = _what(ref)
    if facts is None:
        raise MonodexError(
            f"{catalog.name}:{label} was not indexed yet; indexing {what} at {commit[:12]} on demand "
            f"did not finish within {seconds:g} s",
            "it goes on in the runner (or resumes at the next search): search again in a moment, "
            "or pass a longer --fresh",
        )
    note = (
        f"{catalog.name}:{label} was not indexed yet: indexed on demand from {what} at {commit[:12]} "
        f"in {facts['seconds']:.1f} s (phase one: unchanged files reused{_later(facts)})"
    )
    return {"label": label, **facts}, note


def catch_up(
    s: Session, catalog: Catalog, label: str, *, here: Standing | None, seconds: float
) -> tuple[CaughtUp, str] | None:
    """Move the label of the branch you stand on to the commit checked out there when it is not
    at it (phase one, bounded by `seconds`); what was done (for the answer's note and its
    freshness), or None when it is there already or you do not stand on its branch. At the
    bound: an error saying so (the refresh goes on in the runner, or resumes)."""
    if here is None or here.branch is None or not here.commit or here.label() != label:
        return None
    state = labelmeta.read(s.store, names.label_id(catalog.name, label))
    if state is None or state.source_kind != "git-commit":
        return None
    if state.crawl_complete and state.commit_oid == here.commit:
        return None
    was = state.commit_oid or None
    ref, commit = f"refs/heads/{here.branch}", here.commit
    facts = _index(s, catalog, label, ref=ref, commit=commit, seconds=seconds)
    if facts is None:
        raise MonodexError(
            f"{catalog.name}:{label} is at {str(was)[:12]}, not at the commit checked out where you "
            f"stand ({commit[:12]}); catching it up did not finish within {seconds:g} s",
            "it goes on in the runner (or resumes at the next search): search again in a moment or "
            "pass a longer --fresh; --as-indexed answers from the label as indexed (code your "
            "checkout may not have)",
        )
    note = (
        f"{catalog.name}:{label} was at {str(was)[:12]}, not at the commit checked out here: caught "
        f"up to {commit[:12]} in {facts['seconds']:.1f} s before answering (phase one{_later(facts)})"
    )
    return {"from_commit": was, "to_commit": commit, **facts}, note


def _index(
    s: Session, catalog: Catalog, label: str, *, ref: str, commit: str, seconds: float
) -> Caught | None:
    """Phase one of the label at `commit`, within `seconds`: in the runner through its refresh
    path (queued and waited for), else here. Its facts, or None at the bound."""
    started = time.monotonic()
    branch = ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None
    if branch is not None:  # the branch holds its label from now on (branchlabels.py)
        branchlabels.claim(s.paths.state_dir, catalog.name, branch, refs.branch_heads(catalog.path) or [])
    reached = refresh.bring_to(s, catalog, label, ref=ref, commit=commit, deadline=started + seconds)
    if reached is None:
        return None
    facts: Caught = {
        "ref": ref,
        "commit": commit,
        "seconds": round(time.monotonic() - started, 3),
        "chunks_pending": fill.pending(s.store, names.label_id(catalog.name, label)),
    }
    if reached.files_reused is not None and reached.files_stored is not None:  # done here, not by the runner
        facts["files_reused"], facts["files_stored"] = reached.files_reused, reached.files_stored
    return facts


def _what(ref: str) -> str:
    return f"branch {ref.removeprefix('refs/heads/')}" if ref.startswith("refs/heads/") else "detached HEAD"


def _later(facts: Caught) -> str:
    pending = facts["chunks_pending"]
    if not pending:
        return ""
    return f"; {pending} new chunks found by their words until their dense vectors are added"


def wait_fresh(s: Session, catalog: Catalog, label: str, seconds: float, *, dense: bool = False) -> Freshness:
    """Make the label reflect its branch's current commit within `seconds`, then describe it.

    Reflecting the commit is phase one: the label is searchable, new chunks by their words until
    phase two gives them vectors; `dense` waits for that too (within the same bound).
    Inside the runner (s.wake set) the refresh is queued like a hook would and the drain woken;
    elsewhere it is refreshed here, stopped at the bound (the label stays resumable). The answer's
    `wait` says whether the bound was hit."""
    started = time.monotonic()
    deadline = started + max(0.0, seconds)
    now = freshness.describe(s, catalog, labelmeta.require_label(s.store, catalog.name, label))
    reached = now["fresh"] is True
    if now["fresh"] is False:
        ref, target = f"refs/heads/{now['branch']}", str(now["branch_commit"])
        reached = refresh.bring_to(s, catalog, label, ref=ref, commit=target, deadline=deadline) is not None
        now = freshness.describe(s, catalog, labelmeta.require_label(s.store, catalog.name, label))
    wait: Wait
    if dense:
        # with no branch to compare (fresh None) the vectors are still worth waiting for
        filled = now["fresh"] is not False and refresh.fill_until(s, catalog, label, deadline)
        waited = round(time.monotonic() - started, 3)
        wait = {
            "seconds": seconds,
            "reached": reached and filled,
            "dense_reached": filled,
            "waited_seconds": waited,
        }
    else:
        wait = {
            "seconds": seconds,
            "reached": reached,
            "waited_seconds": round(time.monotonic() - started, 3),
        }
    return {**now, "wait": wait}
