"""The operations that need the index, as one function each over a Session and plain JSON
arguments: the CLI runs them in-process, the runner runs the same functions for its socket
clients, so both paths give the same answers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from monodex.indexer.points import labelmeta
from monodex.indexer.read import search as searching
from monodex.indexer.session import Session
from monodex.indexer.upkeep import gc
from monodex.indexer.write import crawlrun

from monodex import names
from monodex.errors import UsageError

Progress = Callable[[int, int, int], None]
Op = Callable[[Session, dict[str, Any], Progress | None, threading.Event | None], dict[str, Any]]


class _LazyQueryEmbedder:
    """The model loads on the first dense query: a lexical search never needs it."""

    def __init__(self, s: Session) -> None:
        self.s = s

    def embed_query(self, text: str) -> Any:
        return self.s.engine.embed_query(text)


def search(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    """Results plus the label's freshness; `fresh` (seconds) waits for the label to reflect its
    branch first; `max_tokens` packs the results into that budget."""
    from monodex.indexer.read import budget
    from monodex.indexer.write import freshness

    cat = s.config().catalog(a["catalog"])
    max_tokens = a.get("max_tokens")
    if max_tokens is not None and int(max_tokens) < 1:
        raise UsageError(f"max_tokens must be at least 1, got {max_tokens}", "pass a budget such as 2000")
    filters = searching.Filters.from_args(a)
    ranking = searching.Ranking.from_args(a)
    fresh = None
    if a.get("fresh") is not None:
        fresh = freshness.wait_fresh(s, cat, a["label"], float(a["fresh"]))
    found = searching.search(
        s.store,
        _LazyQueryEmbedder(s),
        catalog=a["catalog"],
        label=a["label"],
        text=a["text"],
        limit=int(a["limit"]),
        filters=filters,
        ranking=ranking,
    )
    results = found["results"]
    if not results and (filters.lang or filters.package):
        from monodex.indexer.read import filterhints

        filterhints.check(s.store, catalog=a["catalog"], label=a["label"], filters=filters)
    if fresh is None:
        fresh = freshness.describe(s, cat, searching.require_label(s.store, cat.name, a["label"]))
    answer: dict[str, Any] = {"results": results, "mode": found["mode"], "freshness": fresh}
    if found["notes"]:
        answer["notes"] = found["notes"]
    if max_tokens is not None:
        answer["results"], answer["budget"] = budget.pack(results, int(max_tokens), s.engine.count_tokens)
    return answer


def view(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    s.config().catalog(a["catalog"])
    if a.get("path"):  # by path: the file as this label has it
        fid = searching.file_id_at(s.store, catalog=a["catalog"], label=a["label"], path=str(a["path"]))
        selector = searching.parse_selector(fid + (f":{a['range']}" if a.get("range") else ""))
    else:
        selector = searching.parse_selector(a["id"])
    return searching.view(s.store, catalog=a["catalog"], label=a["label"], selector=selector)


def _registered_or_left(s: Session, catalog: str) -> None:
    """A registered catalog, or one removed from config.json whose labels or chunks are still in
    the index (so they can be listed, removed and collected); else the unknown-catalog error."""
    from monodex.indexer.points.labelmeta import LABEL_METADATA
    from monodex.indexer.store.base import Filter, Match, MatchAny

    cfg = s.config()
    if catalog in cfg.catalogs or s.store.info() is None:
        cfg.catalog(catalog)
        return
    kinds = MatchAny("source_type", (LABEL_METADATA, labelmeta.CODE))
    if not s.store.count(Filter(must=(Match("catalog", catalog), kinds))):
        cfg.catalog(catalog)


def labels(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    if a.get("catalog"):
        _registered_or_left(s, a["catalog"])
    return {"labels": searching.labels(s.store, a.get("catalog"))}


def collect_garbage(
    s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None
) -> dict[str, Any]:
    _registered_or_left(s, a["catalog"])
    return gc.collect(s.store, a["catalog"], dry_run=bool(a.get("dry_run")), now=time.time()).as_json()


def crawl(s: Session, a: dict[str, Any], p: Progress | None, c: threading.Event | None) -> dict[str, Any]:
    cfg = s.config()
    req = crawlrun.Request(
        catalog=cfg.catalog(_name(names.validate_catalog, "catalog", a.get("catalog"))),
        label=_name(names.validate_label, "label", a.get("label")),
        commit=a.get("commit"),
        working_dir=bool(a.get("working_dir")),
        full=bool(a.get("full")),
    )
    return crawlrun.crawl(s, req, progress=p, cancel=c).as_json()


def _name(validate: Callable[[str], str], kind: str, value: Any) -> str:
    """The crawl creates labels: one outside the grammar (from a socket client, say) would be a
    label the CLI cannot name, so it could never be removed."""
    if not isinstance(value, str):
        raise UsageError(f"invalid {kind} name {value!r}: expected a string", f"pass the {kind} as a string")
    return validate(value)


def remove_label(
    s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None
) -> dict[str, Any]:
    from monodex.indexer.upkeep import lifecycle

    _registered_or_left(s, a["catalog"])
    return lifecycle.remove_label(s.store, s.paths, a["catalog"], a["label"])


def purge_catalog(
    s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None
) -> dict[str, Any]:
    """Every label of the catalog removed, then its leftovers collected (`catalog rm --purge`)."""
    from monodex.indexer.upkeep import lifecycle

    catalog = a["catalog"]
    _registered_or_left(s, catalog)
    return lifecycle.purge_catalog(s.store, s.paths, catalog, now=time.time())


def verify(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    from monodex.indexer.upkeep import verify as verifying

    return verifying.verify(
        s, catalog=a.get("catalog"), label=a.get("label"), repair_drift=bool(a.get("repair"))
    )


OPS: dict[str, Op] = {
    "search": search,
    "view": view,
    "labels": labels,
    "gc": collect_garbage,
    "crawl": crawl,
    "labels-rm": remove_label,
    "catalog-purge": purge_catalog,
    "verify": verify,
}
WRITES = frozenset(
    {"gc", "crawl", "labels-rm", "catalog-purge", "verify"}
)  # the runner runs these one at a time with its own jobs


def run(
    s: Session,
    op: str,
    args: dict[str, Any],
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> dict[str, Any]:
    try:
        fn = OPS[op]
    except KeyError:
        raise UsageError(f"unknown operation {op!r}", f"use one of: {', '.join(sorted(OPS))}") from None
    return fn(s, args, progress, cancel)
