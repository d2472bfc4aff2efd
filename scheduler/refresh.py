"""What the runner does for one request and for the nightly jobs, through the indexer."""

from __future__ import annotations

import threading
import time
from typing import Any

from monodex.indexer import crawlrun, gc, labelmeta, session

from monodex import config
from monodex.errors import MonodexError
from monodex.paths import Paths
from monodex.spool import Request


def refresh_label(paths: Paths, request: Request, cancel: threading.Event | None = None) -> dict[str, Any]:
    cfg = config.load(paths)
    catalog = cfg.catalog(request.catalog)
    req = crawlrun.Request(catalog, request.label, request.commit)
    summary = crawlrun.crawl(cfg, paths, req, cancel=cancel)
    return summary.as_json()


def collect_garbage(paths: Paths) -> dict[str, Any]:
    cfg = config.load(paths)
    store = session.store(cfg, paths)
    try:
        reports = {
            name: gc.collect(store, name, dry_run=False, now=time.time()).as_json() for name in cfg.catalogs
        }
    finally:
        store.close()
    return {"catalogs": reports}


def verify_labels(paths: Paths, stop: threading.Event) -> dict[str, Any]:
    """Until the incremental-refresh issue brings `monodex verify`, verification is a full
    re-crawl of every commit label at its indexed commit: it repairs any drift it meets."""
    cfg = config.load(paths)
    store = session.store(cfg, paths)
    try:
        states = [s for s in labelmeta.list_all(store) if s.source_kind == "git-commit" and s.commit_oid]
    finally:
        store.close()
    results = []
    for s in states:
        if stop.is_set() or s.catalog not in cfg.catalogs:
            continue
        try:
            req = crawlrun.Request(cfg.catalogs[s.catalog], s.label, s.commit_oid)
            summary = crawlrun.crawl(cfg, paths, req, cancel=stop).as_json()
            results.append(
                {
                    "label": s.label_id,
                    "ok": True,
                    "files_embedded": summary["files_embedded"],
                    "files_removed": summary["files_removed"],
                }
            )
        except MonodexError as exc:
            results.append({"label": s.label_id, "ok": False, "error": exc.problem})
    return {"labels": results}
