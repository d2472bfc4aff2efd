"""The one refresh path: a label brought to the commit a spool entry names (refresh_label). The
runner's drain runs it for every entry; a reader that needs a label caught up (a search where you
stand, `--fresh`) asks for it here (bring_to): inside the runner by queueing the entry and waiting
for the drain, elsewhere by running it in-process, bounded. Also here: the one place the indexer
queues an entry (ask), the refreshes the runner queues itself (after a model change, for history
never counted) and its fill job's round. The runner reaches these through indexer/ops/."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from monodex.indexer.points import labelmeta
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.session import Session
from monodex.indexer.write import crawlrun, fill
from monodex.indexer.write.memory import MemoryWatch
from monodex.indexer.write.request import Request

from monodex import names
from monodex.errors import Interrupted
from monodex.git import refs
from monodex.labels import branchlabels, known_labels
from monodex.observe.progress import OnProgress
from monodex.runner import spool
from monodex.schema.crawl import CrawlAnswer, RefreshAnswer
from monodex.settings.config import Catalog


def refresh_label(
    s: Session,
    request: spool.Request,
    cancel: threading.Event | None = None,
    *,
    progress: OnProgress | None = None,
) -> RefreshAnswer:
    catalog = s.config().catalog(request.catalog)
    if request.hook != "cli" and request.label in known_labels.removed(s.paths.state_dir, catalog.name):
        # queued by a hook before the user's `labels rm`: an explicit remove wins over the hooks
        why = "removed with 'monodex labels rm'"
        return {"catalog": catalog.name, "label": request.label, "not_refreshed": why}
    return _move(s, catalog, request, cancel, progress=progress)


def _move(
    s: Session,
    catalog: Catalog,
    request: spool.Request,
    cancel: threading.Event | None,
    *,
    progress: OnProgress | None = None,
) -> CrawlAnswer:
    """The label moved to where its branch points now (phase one), as its own branch's label."""
    request = own_label(s, catalog, request)
    req = Request.from_spool(catalog, request, _where_its_branch_points(catalog.path, request))
    # phase one only: the label is searchable when this returns; the fill job adds the vectors
    summary = crawlrun.crawl(s, req, progress=progress, cancel=cancel, dense="later").as_json()
    if request.ref.startswith("refs/heads/"):  # the branch it tracks (upkeep/branches.py)
        labelmeta.remember_branch(s.store, req.label_id, request.ref.removeprefix("refs/heads/"))
    return summary


def own_label(s: Session, catalog: Catalog, request: spool.Request) -> spool.Request:
    """The request, for its branch's own label (claimed now: branchlabels.py). One queued for a
    label another branch holds (by a monodex from before labels were claimed) refreshes the
    label of the branch that moved, never the other branch's."""
    branch = request.ref.removeprefix("refs/heads/")
    heads = refs.branch_heads(catalog.path) if request.ref.startswith("refs/heads/") else None
    if not heads or branch not in heads:
        return request  # a commit's label, or the branch is gone: the label the request names
    label = branchlabels.claim(s.paths.state_dir, catalog.name, branch, heads)
    return dataclasses.replace(request, label=label) if label != request.label else request


def _where_its_branch_points(repo_path: Any, request: spool.Request) -> str:
    """Where the label's branch is now; the request's commit once the branch is gone.

    Hooks write their entries in the background, so two commits in a row can land in either
    order (and coalescing takes the newest entry): the branch itself says which came last.
    """
    if not request.ref.startswith("refs/heads/"):
        return request.commit
    # deleted (or never there, or unreadable): index what the hook saw
    return refs.ref_commit(repo_path, request.ref) or request.commit


# How often a reader waiting for the runner's drain (or its fill job) looks again.
POLL_SECONDS = 0.05


def ask(
    queue: spool.Spool, catalog: Catalog, label: str, *, ref: str, commit: str, hook: str, at: float
) -> None:
    """Queue a refresh of the label for the runner, as a hook would (spool.refresh_request)."""
    entry = spool.refresh_request(
        catalog.name, label, repo=catalog.path, ref=ref, commit=commit, hook=hook, at=at
    )
    queue.enqueue(entry)


@dataclass(frozen=True)
class Reached:
    """A label brought to a commit for a reader: by this process (with the crawl's counts) or
    by the runner (counts None)."""

    files_reused: int | None = None
    files_stored: int | None = None


def bring_to(
    s: Session, catalog: Catalog, label: str, *, ref: str, commit: str, deadline: float
) -> Reached | None:
    """Make the label reflect `commit` (phase one) by the monotonic `deadline`, or None: inside the
    runner (s.wake set) queued like a hook would (unless a request not backing off is queued
    already) and polled; elsewhere refreshed here (refresh_label), stopped at the deadline (the
    label stays resumable). A label that does not exist yet is created the same way. `ref` is
    the branch the commit came from (refs/heads/...; "HEAD" for a detached commit)."""
    if s.wake is None:
        return _refresh_until(s, catalog, label, ref=ref, commit=commit, deadline=deadline)
    queue = spool.default(s.paths.state_dir)
    pending = queue.requests_for(names.label_id(catalog.name, label))
    # one backing off after failures waits up to an hour: a request of ours is tried at once
    untried = [r.created_at for r in pending if not r.last_error]
    since = min(untried, default=spool.now())
    if not untried:
        ask(queue, catalog, label, ref=ref, commit=commit, hook="cli", at=since)
    s.wake()
    return Reached() if _poll(s, catalog, label, commit, deadline, since) else None


def _refresh_until(
    s: Session, catalog: Catalog, label: str, *, ref: str, commit: str, deadline: float
) -> Reached | None:
    entry = spool.refresh_request(
        catalog.name, label, repo=catalog.path, ref=ref, commit=commit, hook="cli", at=spool.now()
    )
    cancel = threading.Event()
    timer = threading.Timer(max(0.0, deadline - time.monotonic()), cancel.set)
    timer.start()
    try:
        done = _move(s, catalog, entry, cancel)
    except Interrupted:
        return None
    finally:
        timer.cancel()
    return Reached(done["files_reused"], done["files_embedded"])


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


def fill_until(s: Session, catalog: Catalog, label: str, deadline: float) -> bool:
    """Every chunk of the label has its dense vector by the deadline: the runner's fill job
    adds them (polled), or this process does."""
    key = names.label_id(catalog.name, label)
    if s.wake is not None:
        while fill.pending(s.store, key):
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_SECONDS * 4)
        return True
    watch = MemoryWatch(s.config().crawl.max_memory_mb).phase_two()
    report = fill.fill(s.store, s.engine, key, should_stop=lambda: time.monotonic() >= deadline, watch=watch)
    return report.pending_after == 0


def queue_model_change(s: Session, queue: spool.Spool) -> list[str]:
    """After a model change: a refresh of every label the previous model's collection holds and
    the new one does not hold complete yet, queued like a hook's (its branch's current commit,
    or the commit it held). Searches keep the previous vectors until each is fully hybrid."""
    previous = s.previous()
    if previous is None:
        return []
    old_store, _ = previous
    cfg = s.config()
    queued = []
    for state in labelmeta.list_all(old_store):
        catalog = cfg.catalogs.get(state.catalog)
        if catalog is None or state.source_kind != "git-commit" or not state.commit_oid:
            continue
        now = labelmeta.read(s.store, state.label_id) if s.store.info() is not None else None
        if now is not None and now.crawl_complete:
            continue
        _queue_refresh(s, queue, catalog, state)
        queued.append(state.label_id)
    return queued


def queue_uncounted_history(s: Session, queue: spool.Spool) -> list[str]:
    """For each catalog whose commit history was never counted (an index built by a monodex
    before the history signal, or counts deleted): a refresh of one of its labels, queued like a
    hook's. A refresh counts the history; a label already at its commit costs nothing more."""
    from monodex.indexer.history import cochanges
    from monodex.indexer.points import labelmeta

    if s.store.info() is None:
        return []
    queued = []
    for catalog in s.config().catalogs.values():
        if cochanges.summary(s.paths.state_dir, catalog.name) is not None:
            continue
        states = [
            st
            for st in labelmeta.list_all(s.store, catalog.name)
            if st.source_kind == "git-commit" and st.commit_oid and st.crawl_complete
        ]
        if not states:
            continue  # nothing indexed yet: its first crawl counts the history
        state = min(states, key=lambda st: st.label)
        _queue_refresh(s, queue, catalog, state)
        queued.append(state.label_id)
    return queued


def _queue_refresh(s: Session, queue: spool.Spool, catalog: Catalog, state: LabelState) -> None:
    """A refresh of the label to its branch's current commit (or the commit it held)."""
    assert state.commit_oid is not None
    heads = refs.branch_heads(catalog.path) or {}
    branch = branchlabels.load(s.paths.state_dir, catalog.name, heads).branch(state.label)
    ask(
        queue,
        catalog,
        state.label,
        ref=f"refs/heads/{branch}" if branch else "",
        commit=heads.get(branch, state.commit_oid) if branch else state.commit_oid,
        hook="cli",  # asked for, not a hook: a label removed by hand is not one of these
        at=spool.now(),
    )


def fill_round(
    s: Session,
    label_id: str,
    *,
    should_stop: Callable[[], bool],
    lock: threading.Lock,
    watch: MemoryWatch | None = None,
) -> fill.FillReport:
    """One round of phase two for the label: the fill job's unit of work. The model runs
    without `lock` (the runner's write lock) and yields between slices; only the vector write
    takes it (and a roll, when `watch`, kept across rounds, says the store must release what
    the writes hold: write/memory.py), so a refresh or a handed-over command never waits for
    the model."""
    t0 = time.monotonic()
    report = fill.FillReport(label_id, pending_before=fill.pending(s.store, label_id))
    prepared = fill.prepare_round(s.store, s.engine, label_id, should_stop=should_stop)
    if prepared is not None:
        with lock:
            prepared.write(s.store, report, watch)
    report.pending_after = fill.pending(s.store, label_id)
    report.stopped = bool(report.pending_after)
    report.seconds = time.monotonic() - t0
    return report
