"""What the runner does for one request and for the nightly jobs, through the indexer and the
runner's one Session."""

from __future__ import annotations

import threading
import time
from typing import Any

from monodex.indexer import crawlrun, gc, labelmeta
from monodex.indexer.session import Session

from monodex.errors import MonodexError
from monodex.spool import Request


def refresh_label(s: Session, request: Request, cancel: threading.Event | None = None) -> dict[str, Any]:
    catalog = s.config().catalog(request.catalog)
    req = crawlrun.Request(catalog, request.label, request.commit)
    return crawlrun.crawl(s, req, cancel=cancel).as_json()


def collect_garbage(s: Session) -> dict[str, Any]:
    cfg = s.config()
    reports = {
        name: gc.collect(s.store, name, dry_run=False, now=time.time()).as_json() for name in cfg.catalogs
    }
    optimize = getattr(s.store, "optimize", None)
    if optimize is not None:  # Edge builds its HNSW and merges segments only when asked; nights are idle
        started = time.monotonic()
        optimize()
        return {"catalogs": reports, "optimize_seconds": round(time.monotonic() - started, 2)}
    return {"catalogs": reports}


def verify_labels(s: Session, stop: threading.Event) -> dict[str, Any]:
    """Until the incremental-refresh issue brings `monodex verify`, verification is a full
    re-crawl of every commit label at its indexed commit: it repairs any drift it meets."""
    cfg = s.config()
    states = [st for st in labelmeta.list_all(s.store) if st.source_kind == "git-commit" and st.commit_oid]
    results = []
    for st in states:
        if stop.is_set() or st.catalog not in cfg.catalogs:
            continue
        try:
            req = crawlrun.Request(cfg.catalogs[st.catalog], st.label, st.commit_oid, full=True)
            summary = crawlrun.crawl(s, req, cancel=stop).as_json()
            results.append(
                {
                    "label": st.label_id,
                    "ok": True,
                    "files_embedded": summary["files_embedded"],
                    "files_removed": summary["files_removed"],
                }
            )
        except MonodexError as exc:
            results.append({"label": st.label_id, "ok": False, "error": exc.problem})
    return {"labels": results}
