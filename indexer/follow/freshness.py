"""Whether a label reflects the code: every search answer says so, and `--fresh` waits for it.

An agent reading results must know if they describe the commit it is looking at. A label tracks
the local branch whose name maps to it; it is fresh when its last complete crawl is that branch's
current commit. A refresh is pending while the spool holds a request for the label or the label
is marked in progress.
"""

from __future__ import annotations

import threading
import time

from monodex.indexer.points import labelmeta
from monodex.indexer.points.labelmeta import LabelState, require_label
from monodex.indexer.session import Session
from monodex.indexer.write import crawlrun, fill
from monodex.indexer.write.crawl import CrawlSummary, Interrupted
from monodex.indexer.write.request import Request

from monodex import branchlabels, names, spool
from monodex.config import Catalog
from monodex.gitrefs import branch_heads, unreadable
from monodex.schema.payload import Key
from monodex.schema.search import BranchGone, Freshness, Wait

POLL_SECONDS = 0.05


def describe(
    s: Session, catalog: Catalog, state: LabelState, *, heads: dict[str, str] | None = None
) -> Freshness:
    """{indexed_commit, complete, source_kind, branch, branch_commit, fresh, refresh_pending}.

    fresh is None when there is no branch to compare with (a working-directory label, a label
    named after no branch). `heads`: the catalog's branch heads when already read (a search of
    many labels reads them once, not once a label)."""
    pending = spool.default(s.paths.state_dir).requests_for(names.label_id(catalog.name, state.label))
    out = Freshness(
        indexed_commit=state.commit_oid or None,
        complete=state.crawl_complete,
        source_kind=state.source_kind,
        branch=None,
        branch_commit=None,
        fresh=None,
        refresh_pending=bool(pending) or not state.crawl_complete,
    )
    failed = [r for r in pending if r.last_error]
    if failed:
        out["refresh_error"] = failed[-1].last_error
    if state.source_kind != "git-commit":
        return out
    heads = heads if heads is not None else branch_heads(catalog.path)
    if heads is None:
        out["problem"], out["hint"] = unreadable(catalog.name, catalog.path)
        return out
    branch = branchlabels.load(s.paths.state_dir, catalog.name, heads).branch(state.label)
    if branch is None:
        if state.extra.get(Key.BRANCH):  # it had one: deleted (upkeep/branches.py)
            since = labelmeta.branch_deleted_at(state) or None
            out["branch_gone"] = BranchGone(branch=state.extra[Key.BRANCH], since=since)
        return out
    head = heads.get(branch)
    fresh = names.is_fresh(complete=state.crawl_complete, indexed_commit=state.commit_oid, branch_commit=head)
    out["branch"], out["branch_commit"], out["fresh"] = branch, head, bool(fresh)
    return out


def wait_fresh(s: Session, catalog: Catalog, label: str, seconds: float, *, dense: bool = False) -> Freshness:
    """Make the label reflect its branch's current commit within `seconds`, then describe it.

    Reflecting the commit is phase one: the label is searchable, new chunks by their words until
    phase two gives them vectors; `dense` waits for that too (within the same bound).
    Inside the runner (s.wake set) the refresh is queued like a hook would and the drain woken;
    elsewhere it is crawled here, stopped at the bound (the label stays resumable). The answer's
    `wait` says whether the bound was hit."""
    started = time.monotonic()
    deadline = started + max(0.0, seconds)
    state = _state(s, catalog, label)
    now = describe(s, catalog, state)
    reached = now["fresh"] is True
    if now["fresh"] is False:
        ref, target = f"refs/heads/{now['branch']}", str(now["branch_commit"])
        reached = reach(s, catalog, label, ref=ref, commit=target, deadline=deadline)
        now = describe(s, catalog, _state(s, catalog, label))
    wait: Wait
    if dense:
        # with no branch to compare (fresh None) the vectors are still worth waiting for
        filled = now["fresh"] is not False and _fill_until(s, catalog, label, deadline)
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


def reach(s: Session, catalog: Catalog, label: str, *, ref: str, commit: str, deadline: float) -> bool:
    """Make the label reflect `commit` (phase one) by the monotonic `deadline`: inside the runner
    (s.wake set) queued like a hook would (unless a request not backing off is queued already)
    and polled; elsewhere crawled here, stopped at the deadline (the label stays resumable). A
    label that does not exist yet is created the same way. `ref` is the branch the commit came
    from (any other ref: none)."""
    if s.wake is None:
        return _crawl_until(s, catalog, label, commit, deadline)
    pending = spool.default(s.paths.state_dir).requests_for(names.label_id(catalog.name, label))
    # one backing off after failures waits up to an hour: a request of ours is tried at once
    untried = [r.created_at for r in pending if not r.last_error]
    since = min(untried, default=spool.now())
    if not untried:
        _enqueue(s, catalog, label, ref, commit, since)
    s.wake()
    return _poll(s, catalog, label, commit, deadline, since)


def _fill_until(s: Session, catalog: Catalog, label: str, deadline: float) -> bool:
    """Every chunk of the label has its dense vector by the deadline: the runner's fill job
    adds them (polled), or this process does."""
    key = names.label_id(catalog.name, label)
    if s.wake is not None:
        while fill.pending(s.store, key):
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS * 4)
        return True
    report = fill.fill(s.store, s.engine, key, should_stop=lambda: time.monotonic() >= deadline)
    return report.pending_after == 0


def _state(s: Session, catalog: Catalog, label: str) -> LabelState:
    return require_label(s.store, catalog.name, label)


def _enqueue(s: Session, catalog: Catalog, label: str, ref: str, commit: str, at: float) -> None:
    spool.default(s.paths.state_dir).enqueue(
        spool.Request(
            catalog=catalog.name,
            label=label,
            repo=str(catalog.path),
            ref=ref,
            commit=commit,
            hook="cli",
            created_at=at,
        )
    )


def _poll(s: Session, catalog: Catalog, label: str, target: str, deadline: float, since: float) -> bool:
    key = names.label_id(catalog.name, label)
    queue = spool.default(s.paths.state_dir)
    while True:
        state = labelmeta.read(s.store, key)
        if state is not None and state.crawl_complete and state.commit_oid == target:
            return True
        # a refresh that failed since we asked backs off for 10 s or more: waiting on is pointless
        # (a failure re-queued keeps its request's time; an older failure is what we are past)
        failed = any(r.last_error and r.created_at >= since for r in queue.requests_for(key))
        if time.monotonic() >= deadline or failed:
            return False
        time.sleep(POLL_SECONDS)


def _crawl_until(s: Session, catalog: Catalog, label: str, target: str, deadline: float) -> bool:
    return crawl_until(s, catalog, label, target, deadline) is not None


def crawl_until(
    s: Session, catalog: Catalog, label: str, target: str, deadline: float
) -> CrawlSummary | None:
    """Phase one of the label at `target` in this process, stopped at the deadline (None then)."""
    cancel = threading.Event()
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), cancel.set)
    timer.start()
    try:
        return crawlrun.crawl(s, Request(catalog, label, target), cancel=cancel, dense="later")
    except Interrupted:
        return None
    finally:
        timer.cancel()
