"""The executor: each front request (monodex/requests.py, validated there) run over a
Session. The CLI and MCP run it in-process when no runner is up; the runner runs the same
functions for its socket clients, so every path gives the same answers.

Indexer modules are imported per operation: listing labels (what `monodex status` asks when the
runner is down) must not load git, tree-sitter or the model."""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, assert_never

from monodex.indexer.session import Session

from monodex import gitrefs, names, spool, standing
from monodex import requests as rq
from monodex.config import Catalog
from monodex.errors import MonodexError, UsageError
from monodex.progress import OnProgress
from monodex.schema.compare import ContainingAnswer, DiffAnswer
from monodex.schema.crawl import CrawlAnswer, PollAnswer, RefreshAnswer
from monodex.schema.eval import EvalAnswer
from monodex.schema.labels import (
    GcAnswer,
    LabelsAnswer,
    NightlyGc,
    OldModelsAnswer,
    PurgedCatalog,
    RemovedLabel,
    VerifyAnswer,
)
from monodex.schema.payload import Key
from monodex.schema.search import CaughtUp, Freshness, Hit, SearchAnswer, ServedBy, ViewAnswer
from monodex.schema.wire import Answer

if TYPE_CHECKING:
    from monodex.indexer.write.fill import FillReport as FillReport  # the runner's fill job reads it


class _LazyQueryEmbedder:
    """The model loads on the first dense query: a lexical search never needs it."""

    def __init__(self, s: Session) -> None:
        self.s = s

    def embed_query(self, text: str) -> Any:
        return self.s.engine.embed_query(text)


def search(s: Session, r: rq.SearchRequest) -> SearchAnswer:
    """Results plus the label's freshness; `fresh` (seconds) waits for the label to reflect its
    branch first; `max_tokens` packs the results into that budget. With `labels` or `all_labels`
    it searches several labels at once: each hit says which of them hold it (issue 24)."""
    from monodex.indexer.compare import across
    from monodex.indexer.follow import freshness, ondemand
    from monodex.indexer.read import budget
    from monodex.indexer.read import search as searching
    from monodex.indexer.store.cochanges import History

    cat = s.config().catalog(r.catalog)
    filters = searching.Filters(paths=r.paths, package=r.package, kind=r.kind, lang=r.lang)
    ranking = searching.Ranking(
        mode=r.mode, per_file=r.per_file, include_tests=r.include_tests, explain=r.explain
    )
    scope = None
    here = made = caught = applied = fresh = None
    if r.labels or r.all_labels:  # several labels: the current model's collection answers
        scope = searching.Scope.of(s.store, across.select(s.store, r.catalog, r.labels, every=r.all_labels))
        store, embedder, served_by = s.store, _LazyQueryEmbedder(s), None
    else:
        here = standing.find(Path(r.worktree), {cat.name: cat.path}) if r.worktree else None
        if r.worktree is not None or r.fresh is not None:  # a label not indexed yet: index it now
            bound = r.fresh if r.fresh is not None else rq.DEFAULT_FRESH_SECONDS
            made = ondemand.ensure(s, cat, r.label, here=here, seconds=bound)
            if made is None and not r.as_indexed:  # where you stand is what you get (DESIGN.md)
                caught = ondemand.catch_up(s, cat, r.label, here=here, seconds=bound)
        if r.fresh is not None and (made is None or r.wait_dense):
            fresh = ondemand.wait_fresh(s, cat, r.label, r.fresh, dense=r.wait_dense)
        store, embedder, served_by = _generation(s, r.catalog, r.label)
        applied = _overlay(s, r) if served_by is None else None
    past = History.open(s.paths.state_dir, r.catalog)
    try:
        found = searching.search(
            store,
            embedder,
            catalog=r.catalog,
            label=r.label or None,
            text=r.text,
            limit=r.limit,
            filters=filters,
            ranking=ranking,
            history=past,
            overlay=searching.Overlay(applied.membership, applied.hidden) if applied else None,
            scope=scope,
        )
    finally:
        if past is not None:
            past.close()
    results = found.results
    notes = found.notes
    answer: SearchAnswer = {"results": results, "mode": found.mode, "dense_coverage": found.dense_coverage}
    if made is not None:
        answer["on_demand"], note = made
        notes.insert(0, note)
    if caught is not None:
        notes.insert(0, caught[1])
    if scope is not None:
        across.annotate(store, results, scope.held)
        heads = gitrefs.branch_heads(cat.path)  # once for all the labels
        whole = found.dense_coverage == 1.0  # then every label's is: no count a label
        by_label: dict[str, Freshness] = {}
        for st, held in zip(scope.states, scope.held, strict=True):
            by_label[st.label] = freshness.describe(s, cat, st, heads=heads)
            by_label[st.label]["dense_coverage"] = (
                1.0 if whole else searching.coverage(store, st.label_id, held=held)[0]
            )
        answer["freshness_by_label"] = by_label
    else:
        if not results and (filters.lang or filters.package or filters.paths):
            from monodex.indexer.read import filterhints

            filterhints.check(store, catalog=r.catalog, label=r.label, filters=filters)
        if fresh is None:
            fresh = freshness.describe(s, cat, searching.require_label(store, cat.name, r.label))
        if fresh.get("problem"):  # the repository moved away: the answer may be stale, unknown how much
            notes.append(f"freshness cannot be checked: {fresh.get('problem')} ({fresh.get('hint')})")
        # next to the freshness: whether the label's dense vectors are all there yet (phase two),
        # and which worktree and commit the answer reflects
        shown: Freshness = {
            **fresh,
            "label": r.label,
            "dense_coverage": found.dense_coverage,
            "worktree": r.worktree,
            "commit": fresh["indexed_commit"],
        }
        answer["freshness"] = shown
        _where_you_stand(shown, notes, here, r, caught)
        if here is not None and here.detached and here.label() == r.label:
            notes.insert(0, f"detached HEAD at {str(here.commit)[:12]}: answered for that commit")
        if applied is not None:
            shown["overlay"] = applied.as_json()
            if applied.skipped:
                notes.append(f"uncommitted files not searched: {applied.skipped}")
    if served_by is not None:
        answer["served_by"] = served_by
        notes.insert(0, served_by["note"])
    if notes:
        answer["notes"] = notes
    if r.max_tokens is not None:
        answer["results"], answer["budget"] = budget.pack(results, r.max_tokens, s.engine.count_tokens)
    if applied is not None and applied.dense_pending and s.wake is None and found.mode != "lexical":
        _fill_overlay(s, applied.membership)
    return answer


def _where_you_stand(
    fresh: Freshness,
    notes: list[str],
    here: standing.Standing | None,
    r: rq.SearchRequest,
    caught: tuple[CaughtUp, str] | None,
) -> None:
    """The commit checked out where you stand next to the one the answer reflects: caught up to
    it (`caught_up`), or, with --as-indexed only, answered from the label as it was indexed."""
    if here is None or not here.commit or here.label() != r.label:
        return
    fresh["checkout_commit"] = here.commit
    if caught is not None:
        fresh["caught_up"] = caught[0]
    elif r.as_indexed and fresh.get("indexed_commit") != here.commit:
        fresh["as_indexed"] = True
        notes.insert(
            0,
            f"answered from {r.label} as indexed at {str(fresh.get('indexed_commit'))[:12]} "
            f"(--as-indexed): the commit checked out here is {here.commit[:12]}; results may hold "
            "code your checkout does not have, or miss code it has",
        )


def _fill_overlay(s: Session, membership: str) -> None:
    """With no runner to do it, this command gives the overlay's new chunks their vectors after
    answering (the model is loaded already): a round at most, so a search never waits long."""
    from monodex.indexer.write import fill

    fill.fill(s.store, s.engine, membership, rounds=1)


def _overlay(s: Session, r: rq.SearchRequest) -> Any:
    """The worktree's uncommitted files brought up to date for this search (write/overlay.py),
    or None: no worktree, or the branch as committed asked for."""
    if r.worktree is None or r.committed:
        return None
    from monodex.indexer.overlay import update as overlay

    s.store.info()  # the shard opened (a local search's own cost) before the overlay's is timed
    return overlay.apply(s, s.config().catalog(r.catalog), r.label, r.worktree)


def diff(s: Session, r: rq.DiffRequest) -> DiffAnswer:
    """What changed from one label to the other: files, chunks and symbols, grouped by package;
    with `text`, the changes a search over the differing chunks finds, best first."""
    from monodex.indexer.compare import diff as diffing
    from monodex.indexer.read import search as searching

    s.config().catalog(r.catalog)
    old = searching.require_label(s.store, r.catalog, r.from_label)
    new = searching.require_label(s.store, r.catalog, r.to_label)
    changes = diffing.files(s.store, old, new, paths=r.paths)
    answer: DiffAnswer = {
        "catalog": r.catalog,
        "from": r.from_label,
        "to": r.to_label,
        "commits": {"from": old.commit_oid, "to": new.commit_oid},
        "source_kinds": {"from": old.source_kind, "to": new.source_kind},
        "complete": old.crawl_complete and new.crawl_complete,
        "summary": diffing.summary(changes),
        "packages": diffing.packages(changes),
        "files": [],  # here in the answer's order; which files, below
    }
    if r.text is None:
        answer["files"] = [c.as_json() for c in changes][: r.limit]
        return answer
    limit = r.limit or rq.DEFAULT_LIMIT
    hits: list[Hit] = []
    notes: list[str] = []
    for side, other in ((new, old), (old, new)):  # what came, then what went
        found = searching.search(
            s.store,
            _LazyQueryEmbedder(s),
            catalog=r.catalog,
            text=r.text,
            limit=min(66, max(30, 3 * limit)),
            filters=searching.Filters(paths=r.paths),
            ranking=searching.Ranking(mode=r.mode, per_file=3, include_tests=True),
            scope=searching.Scope.of(s.store, (side,), without=(other.label_id,)),
        )
        hits += found.results
        notes += [n for n in found.notes if n not in notes]
    ranked = diffing.rank(changes, hits)
    answer["files"] = [c.as_json(score=round(score, 4)) for c, score in ranked[:limit]]
    answer["more"] = max(0, len(ranked) - limit)  # found, ranked below the limit
    answer["unmatched"] = len(changes) - len(ranked)  # not found by the question at all
    if notes:
        answer["notes"] = notes
    return answer


def labels_containing(s: Session, r: rq.ContainingRequest) -> ContainingAnswer:
    """Which labels hold a file version or a chunk, and which hold another version of its path."""
    from monodex.indexer.compare import across

    _registered_or_left(s, r.catalog)
    if s.store.info() is None:
        raise MonodexError("the index is empty", "index a label first with 'monodex crawl'")
    file_id, path, line, ordinal = r.parts()
    return across.containing(
        s.store,
        r.catalog,
        file_id=file_id,
        path=path,
        line=line,
        ordinal=ordinal,
        label=r.label,
        here=_label_here(s, r.catalog, r.worktree),
    )


def _label_here(s: Session, catalog: str, worktree: str | None) -> str | None:
    """The label of the branch (or detached commit) checked out in `worktree`, a checkout of the
    registered `catalog`; None otherwise."""
    cat = s.config().catalogs.get(catalog)
    here = standing.find(Path(worktree), {catalog: cat.path}) if worktree and cat else None
    try:
        return here.label() if here is not None else None
    except UsageError:  # a branch that maps to no label holds no version
        return None


def _generation(s: Session, catalog: str, label: str) -> tuple[Any, Any, ServedBy | None]:
    """(store, query embedder, served_by) for a search: after a model change the previous
    model's collection answers a label until the new one holds it fully hybrid."""
    from monodex.indexer.points import labelmeta
    from monodex.indexer.read import search as searching

    current = (s.store, _LazyQueryEmbedder(s), None)
    previous = s.previous()
    if previous is None:
        return current
    lid = names.label_id(catalog, label)
    state = labelmeta.read(s.store, lid) if s.store.info() is not None else None
    covered = 0.0
    if state is not None and state.crawl_complete:
        covered, waiting, _ = searching.coverage(s.store, lid)
        if not waiting:
            return current
    old_store, old_engine = previous
    if labelmeta.read(old_store, lid) is None:
        return current
    note = (
        f"answered with the previous model's vectors ({old_engine.embedder_id}, collection "
        f"{s.cfg.qdrant.collection!r}) until the new model's are complete "
        f"({covered:.0%} of this label so far)"
    )
    return (
        old_store,
        old_engine,
        ServedBy(
            collection=s.cfg.qdrant.collection,
            embedder_id=old_engine.embedder_id,
            new_model_coverage=covered,
            note=note,
        ),
    )


def view(s: Session, r: rq.ViewRequest) -> ViewAnswer:
    from monodex.indexer.read import search as searching

    s.config().catalog(r.catalog)
    first, last = r.selection()
    file_id = r.file_id
    if r.path:  # by path: the file as this label has it
        file_id = searching.file_id_at(s.store, catalog=r.catalog, label=r.label, path=r.path)
    assert file_id is not None  # the request has one of the two
    selector = searching.Selector(file_id, first, last)
    return searching.view(s.store, catalog=r.catalog, label=r.label, selector=selector)


def _registered_or_left(s: Session, catalog: str) -> None:
    """A registered catalog, or one removed from config.json whose labels or chunks are still in
    the index (so they can be listed, removed and collected); else the unknown-catalog error."""
    from monodex.indexer.points import labelmeta
    from monodex.indexer.store.base import Filter, Match, MatchAny

    cfg = s.config()
    if catalog in cfg.catalogs or s.store.info() is None:
        cfg.catalog(catalog)
        return
    kinds = MatchAny(Key.SOURCE_TYPE, (labelmeta.LABEL_METADATA, labelmeta.CODE))
    if not s.store.count(Filter(must=(Match(Key.CATALOG, catalog), kinds))):
        cfg.catalog(catalog)


def labels(s: Session, r: rq.LabelsRequest) -> LabelsAnswer:
    from monodex.indexer.read import search as searching

    if r.catalog:
        _registered_or_left(s, r.catalog)
    return {
        "labels": searching.labels(s.store, r.catalog),
        "overlays": searching.overlays(s.store, r.catalog),
    }


def collect_garbage(s: Session, r: rq.GcRequest) -> GcAnswer:
    from monodex.indexer.upkeep import gc

    _registered_or_left(s, r.catalog)
    result = gc.collect(s.store, r.catalog, dry_run=r.dry_run, now=time.time()).as_json()
    if r.compact and not r.dry_run:
        started = time.monotonic()
        result["compacted"] = s.store.optimize()
        result["compact_seconds"] = round(time.monotonic() - started, 2)
    return result


def old_models(s: Session, r: rq.OldModelsRequest) -> OldModelsAnswer:
    from monodex.indexer.upkeep import models

    if s.shared:  # the runner's session: its jobs and clients read from these collections
        raise UsageError(
            "the runner holds the index: old models' collections are removed with it stopped",
            "stop it ('systemctl --user stop monodex-runner'), run 'monodex gc --old-models', start it again",
        )
    old = models.find(s)
    renamed = None if r.dry_run else models.remove(s, old)
    return {"dry_run": r.dry_run, "collections": [o.as_json() for o in old], "collection": renamed}


def crawl(
    s: Session, r: rq.CrawlRequest, progress: OnProgress | None, cancel: threading.Event | None
) -> CrawlAnswer:
    from monodex.indexer.write import crawlrun

    req = crawlrun.Request(
        catalog=_checkout(s.config().catalog(r.catalog), r.worktree),
        label=r.label,
        commit=r.commit,
        working_dir=r.working_dir,
        full=r.full,
    )
    # In the runner (s.wake set) its fill job adds the vectors after this returns; elsewhere
    # nobody else would, so the command does it unless told not to wait.
    wait = r.wait_dense if r.wait_dense is not None else s.wake is None
    result = crawlrun.crawl(
        s, req, progress=progress, cancel=cancel, dense="fill" if wait else "later"
    ).as_json()
    if s.wake is None and r.compact:  # no runner: nobody compacts tonight, and each search opens it
        from monodex.indexer.upkeep import compaction

        started = compaction.later(s.store, s.paths.log_dir)
        if started is not None and "skipped" in started:
            result["compacted"] = started  # not compacted, and why (as before)
        elif started is not None:
            result["compaction"] = started  # compacting in another process: nothing waits for it
    return result


def _checkout(catalog: Catalog, worktree: str | None) -> Catalog:
    """The catalog read through one of its checkouts (a linked worktree: its HEAD, its files)."""
    if worktree is None:
        return catalog
    found = standing.find(Path(worktree), {catalog.name: catalog.path})
    if found is None:
        raise UsageError(
            f"{worktree} is not a checkout of catalog {catalog.name!r} ({catalog.path})",
            "run the command inside one of its worktrees ('git worktree list' shows them)",
        )
    return dataclasses.replace(catalog, path=found.worktree)


def check(s: Session, request: rq.Request) -> None:
    """What a write can be refused for before it waits for the index (the runner's write lock):
    a crawl of a revision that names no commit fails in milliseconds, not after the fill round."""
    if isinstance(request, rq.CrawlRequest) and not request.working_dir:
        from monodex.indexer.write import crawlrun

        crawlrun.check_commit(s.config().catalog(request.catalog), request.commit)


def remove_label(s: Session, r: rq.RemoveLabelRequest) -> RemovedLabel:
    from monodex.indexer.upkeep import lifecycle

    _registered_or_left(s, r.catalog)
    return lifecycle.remove_label(s.store, s.paths, r.catalog, r.label)


def purge_catalog(s: Session, r: rq.PurgeCatalogRequest) -> PurgedCatalog:
    """Every label of the catalog removed, then its leftovers collected (`catalog rm --purge`)."""
    from monodex.indexer.upkeep import lifecycle

    _registered_or_left(s, r.catalog)
    return lifecycle.purge_catalog(s.store, s.paths, r.catalog, now=time.time())


def verify(s: Session, r: rq.VerifyRequest) -> VerifyAnswer:
    from monodex.indexer.upkeep import verify as verifying

    return verifying.verify(s, catalog=r.catalog, label=r.label, repair_drift=r.repair)


def evaluate(
    s: Session, r: rq.EvalRequest, progress: OnProgress | None, cancel: threading.Event | None
) -> EvalAnswer:
    """Search scored on the label's own questions, every mode and a plain BM25 (`monodex eval`)."""
    from monodex.indexer.evaluate import run as evaluating

    return evaluating.evaluate(s, r, progress, cancel)


def run(
    s: Session,
    request: rq.Request,
    progress: OnProgress | None = None,
    cancel: threading.Event | None = None,
) -> Answer:
    """The answer to one request (progress and cancel reach the crawl, the one long write, and
    the evaluation, the one long read)."""
    match request:
        case rq.SearchRequest():
            return search(s, request)
        case rq.DiffRequest():
            return diff(s, request)
        case rq.ContainingRequest():
            return labels_containing(s, request)
        case rq.ViewRequest():
            return view(s, request)
        case rq.LabelsRequest():
            return labels(s, request)
        case rq.GcRequest():
            return collect_garbage(s, request)
        case rq.OldModelsRequest():
            return old_models(s, request)
        case rq.CrawlRequest():
            return crawl(s, request, progress, cancel)
        case rq.RemoveLabelRequest():
            return remove_label(s, request)
        case rq.PurgeCatalogRequest():
            return purge_catalog(s, request)
        case rq.VerifyRequest():
            return verify(s, request)
        case rq.EvalRequest():
            return evaluate(s, request, progress, cancel)
    assert_never(request)


# --- the runner's door: its jobs reach the indexer here, as the front's requests do ------------


def refresh(
    s: Session,
    entry: rq.RefreshRequest,
    cancel: threading.Event | None = None,
    *,
    progress: OnProgress | None = None,
) -> RefreshAnswer:
    """Move one spool entry's label to where its branch points now (phase one)."""
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.refresh_label(s, entry, cancel, progress=progress)


def fill_round(
    s: Session, label_id: str, *, should_stop: Callable[[], bool], lock: threading.Lock
) -> FillReport:
    """One round of phase two (follow/refresh.fill_round): the model outside `lock`."""
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.fill_round(s, label_id, should_stop=should_stop, lock=lock)


def labels_waiting(s: Session) -> list[str]:
    """Labels with chunks waiting for their vector, the most recently refreshed first."""
    from monodex.indexer.write import fill

    return fill.labels_waiting(s.store)


def queue_model_change(s: Session, queue: spool.Spool) -> list[str]:
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.queue_model_change(s, queue)


def queue_uncounted_history(s: Session, queue: spool.Spool) -> list[str]:
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.queue_uncounted_history(s, queue)


def poll_branches(s: Session, queue: spool.Spool, *, now: float) -> PollAnswer:
    """Every catalog's branches against its labels (upkeep/branches.py): moves no hook saw are
    queued, deleted branches marked, and removed after the grace period."""
    from monodex.indexer.upkeep import branches

    return branches.poll(s, queue, now=now).as_json()


def collect_all(s: Session) -> NightlyGc:
    from monodex.indexer.upkeep import nightly

    return nightly.collect_garbage(s)


def verify_all(s: Session, stop: threading.Event) -> VerifyAnswer:
    from monodex.indexer.upkeep import nightly

    return nightly.verify_labels(s, stop)
