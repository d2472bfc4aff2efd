"""The operations that need the index, as one function each over a Session and plain JSON
arguments: the CLI runs them in-process, the runner runs the same functions for its socket
clients, so both paths give the same answers."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from monodex.indexer import crawlrun, gc
from monodex.indexer import search as searching
from monodex.indexer.session import Session

from monodex.errors import UsageError

Progress = Callable[[int, int, int], None]
Op = Callable[[Session, dict[str, Any], Progress | None, threading.Event | None], dict[str, Any]]


def search(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    s.config().catalog(a["catalog"])
    results = searching.search(
        s.store, s.engine, catalog=a["catalog"], label=a["label"], text=a["text"], limit=int(a["limit"])
    )
    return {"results": results}


def view(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    s.config().catalog(a["catalog"])
    selector = searching.parse_selector(a["id"])
    return searching.view(s.store, catalog=a["catalog"], label=a["label"], selector=selector)


def labels(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    if a.get("catalog"):
        s.config().catalog(a["catalog"])
    return {"labels": searching.labels(s.store, a.get("catalog"))}


def collect_garbage(
    s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None
) -> dict[str, Any]:
    s.config().catalog(a["catalog"])
    return gc.collect(s.store, a["catalog"], dry_run=bool(a.get("dry_run")), now=time.time()).as_json()


def crawl(s: Session, a: dict[str, Any], p: Progress | None, c: threading.Event | None) -> dict[str, Any]:
    cfg = s.config()
    req = crawlrun.Request(
        catalog=cfg.catalog(a["catalog"]),
        label=a["label"],
        commit=a.get("commit"),
        working_dir=bool(a.get("working_dir")),
        full=bool(a.get("full")),
    )
    return crawlrun.crawl(s, req, progress=p, cancel=c).as_json()


def remove_label(
    s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None
) -> dict[str, Any]:
    from monodex.indexer import lifecycle

    s.config().catalog(a["catalog"])
    return lifecycle.remove_label(s.store, s.paths, a["catalog"], a["label"])


def verify(s: Session, a: dict[str, Any], _p: Progress | None, _c: threading.Event | None) -> dict[str, Any]:
    from monodex.indexer import verify as verifying

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
    "verify": verify,
}
WRITES = frozenset(
    {"gc", "crawl", "labels-rm", "verify"}
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
