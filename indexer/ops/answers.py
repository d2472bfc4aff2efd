"""The answer to each of the front's requests (monodex/requests/, validated there), run over a
Session: `run` is the door; a search is answered by ops/search.py."""

from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import assert_never

from monodex.indexer.ops.search import LazyQueryEmbedder, search
from monodex.indexer.session import Session

from monodex import requests as rq
from monodex.errors import MonodexError, UsageError
from monodex.labels import standing
from monodex.observe.progress import OnProgress
from monodex.schema.compare import ContainingAnswer, DiffAnswer
from monodex.schema.crawl import CrawlAnswer
from monodex.schema.eval import EvalAnswer
from monodex.schema.labels import (
    GcAnswer,
    LabelsAnswer,
    OldModelsAnswer,
    PurgedCatalog,
    RemovedLabel,
    VerifyAnswer,
)
from monodex.schema.payload import Key
from monodex.schema.search import Hit, ViewAnswer
from monodex.schema.wire import Answer
from monodex.settings.config import Catalog


def diff(s: Session, r: rq.DiffRequest) -> DiffAnswer:
    """What changed from one label to the other: files, chunks and symbols, grouped by package;
    with `text`, the changes a search over the differing chunks finds, best first."""
    from monodex.indexer.compare import diff as diffing
    from monodex.indexer.points import labelmeta
    from monodex.indexer.read import search as searching

    tuning = s.config().catalog(r.catalog).search
    old = labelmeta.require_label(s.store, r.catalog, r.from_label)
    new = labelmeta.require_label(s.store, r.catalog, r.to_label)
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
            LazyQueryEmbedder(s),
            catalog=r.catalog,
            text=r.text,
            limit=min(66, max(30, 3 * limit)),
            filters=searching.Filters(paths=r.paths),
            ranking=searching.Ranking.tuned(
                r.mode,
                lexical_weight=tuning.lexical_weight,
                history_weight=tuning.history_weight,
                per_file=3,
                include_tests=True,
            ),
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


def view(s: Session, r: rq.ViewRequest) -> ViewAnswer:
    from monodex.indexer.read import view as viewing

    s.config().catalog(r.catalog)
    first, last = r.selection()
    file_id = r.file_id
    if r.path:  # by path: the file as this label has it
        file_id = viewing.file_id_at(s.store, catalog=r.catalog, label=r.label, path=r.path)
    assert file_id is not None  # the request has one of the two
    selector = viewing.Selector(file_id, first, last)
    return viewing.view(s.store, catalog=r.catalog, label=r.label, selector=selector)


def _registered_or_left(s: Session, catalog: str) -> None:
    """A registered catalog, or one removed from config.json whose labels or chunks are still in
    the index (so they can be listed, removed and collected); else the unknown-catalog error."""
    from monodex.indexer.points import filters
    from monodex.indexer.store.base import Filter, Match, MatchAny

    cfg = s.config()
    if catalog in cfg.catalogs or s.store.info() is None:
        cfg.catalog(catalog)
        return
    kinds = MatchAny(Key.SOURCE_TYPE, (filters.LABEL_METADATA, filters.CODE))
    if not s.store.count(Filter(must=(Match(Key.CATALOG, catalog), kinds))):
        cfg.catalog(catalog)


def labels(s: Session, r: rq.LabelsRequest) -> LabelsAnswer:
    from monodex.indexer.read import listing

    if r.catalog:
        _registered_or_left(s, r.catalog)
    return {
        "labels": listing.labels(s.store, r.catalog),
        "overlays": listing.overlays(s.store, r.catalog),
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
