"""The executor: each front request (monodex/requests.py, validated there) run over a
Session. The CLI and MCP run it in-process when no runner is up; the runner runs the same
functions for its socket clients, so every path gives the same answers.

Indexer modules are imported per operation: listing labels (what `monodex status` asks when the
runner is down) must not load git, tree-sitter or the model."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, assert_never

from monodex.indexer.session import Session

from monodex import names
from monodex import requests as rq
from monodex.errors import UsageError

Progress = Callable[[int, int, int, str], None]  # done, total, chunks, phase (rpc.Progress)


class _LazyQueryEmbedder:
    """The model loads on the first dense query: a lexical search never needs it."""

    def __init__(self, s: Session) -> None:
        self.s = s

    def embed_query(self, text: str) -> Any:
        return self.s.engine.embed_query(text)


def search(s: Session, r: rq.SearchRequest) -> dict[str, Any]:
    """Results plus the label's freshness; `fresh` (seconds) waits for the label to reflect its
    branch first; `max_tokens` packs the results into that budget."""
    from monodex.indexer.read import budget
    from monodex.indexer.read import search as searching
    from monodex.indexer.store.cochanges import History
    from monodex.indexer.write import freshness

    cat = s.config().catalog(r.catalog)
    filters = searching.Filters(paths=r.paths, package=r.package, kind=r.kind, lang=r.lang)
    ranking = searching.Ranking(
        mode=r.mode, per_file=r.per_file, include_tests=r.include_tests, explain=r.explain
    )
    fresh = (
        freshness.wait_fresh(s, cat, r.label, r.fresh, dense=r.wait_dense) if r.fresh is not None else None
    )
    store, embedder, served_by = _generation(s, r.catalog, r.label)
    past = History.open(s.paths.state_dir, r.catalog)
    try:
        found = searching.search(
            store,
            embedder,
            catalog=r.catalog,
            label=r.label,
            text=r.text,
            limit=r.limit,
            filters=filters,
            ranking=ranking,
            history=past,
        )
    finally:
        if past is not None:
            past.close()
    results = found["results"]
    if not results and (filters.lang or filters.package or filters.paths):
        from monodex.indexer.read import filterhints

        filterhints.check(store, catalog=r.catalog, label=r.label, filters=filters)
    if fresh is None:
        fresh = freshness.describe(s, cat, searching.require_label(store, cat.name, r.label))
    # next to the freshness: whether the label's dense vectors are all there yet (phase two)
    fresh = {**fresh, "dense_coverage": found["dense_coverage"]}
    answer: dict[str, Any] = {
        "results": results,
        "mode": found["mode"],
        "freshness": fresh,
        "dense_coverage": found["dense_coverage"],
    }
    if served_by is not None:
        answer["served_by"] = served_by
        found["notes"].insert(0, served_by["note"])
    if found["notes"]:
        answer["notes"] = found["notes"]
    if r.max_tokens is not None:
        answer["results"], answer["budget"] = budget.pack(results, r.max_tokens, s.engine.count_tokens)
    return answer


def _generation(s: Session, catalog: str, label: str) -> tuple[Any, Any, dict[str, Any] | None]:
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
        {
            "collection": s.cfg.qdrant.collection,
            "embedder_id": old_engine.embedder_id,
            "new_model_coverage": covered,
            "note": note,
        },
    )


def view(s: Session, r: rq.ViewRequest) -> dict[str, Any]:
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
    kinds = MatchAny("source_type", (labelmeta.LABEL_METADATA, labelmeta.CODE))
    if not s.store.count(Filter(must=(Match("catalog", catalog), kinds))):
        cfg.catalog(catalog)


def labels(s: Session, r: rq.LabelsRequest) -> dict[str, Any]:
    from monodex.indexer.read import search as searching

    if r.catalog:
        _registered_or_left(s, r.catalog)
    return {"labels": searching.labels(s.store, r.catalog)}


def collect_garbage(s: Session, r: rq.GcRequest) -> dict[str, Any]:
    from monodex.indexer.upkeep import gc

    _registered_or_left(s, r.catalog)
    return gc.collect(s.store, r.catalog, dry_run=r.dry_run, now=time.time()).as_json()


def old_models(s: Session, r: rq.OldModelsRequest) -> dict[str, Any]:
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
    s: Session, r: rq.CrawlRequest, progress: Progress | None, cancel: threading.Event | None
) -> dict[str, Any]:
    from monodex.indexer.write import crawlrun

    req = crawlrun.Request(
        catalog=s.config().catalog(r.catalog),
        label=r.label,
        commit=r.commit,
        working_dir=r.working_dir,
        full=r.full,
    )
    # In the runner (s.wake set) its fill job adds the vectors after this returns; elsewhere
    # nobody else would, so the command does it unless told not to wait.
    wait = r.wait_dense if r.wait_dense is not None else s.wake is None
    return crawlrun.crawl(
        s, req, progress=progress, cancel=cancel, dense="fill" if wait else "later"
    ).as_json()


def remove_label(s: Session, r: rq.RemoveLabelRequest) -> dict[str, Any]:
    from monodex.indexer.upkeep import lifecycle

    _registered_or_left(s, r.catalog)
    return lifecycle.remove_label(s.store, s.paths, r.catalog, r.label)


def purge_catalog(s: Session, r: rq.PurgeCatalogRequest) -> dict[str, Any]:
    """Every label of the catalog removed, then its leftovers collected (`catalog rm --purge`)."""
    from monodex.indexer.upkeep import lifecycle

    _registered_or_left(s, r.catalog)
    return lifecycle.purge_catalog(s.store, s.paths, r.catalog, now=time.time())


def verify(s: Session, r: rq.VerifyRequest) -> dict[str, Any]:
    from monodex.indexer.upkeep import verify as verifying

    return verifying.verify(s, catalog=r.catalog, label=r.label, repair_drift=r.repair)


def run(
    s: Session,
    request: rq.Request,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    """The answer to one request (progress and cancel reach the crawl, the one long write)."""
    match request:
        case rq.SearchRequest():
            return search(s, request)
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
    assert_never(request)
