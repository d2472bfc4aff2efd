"""The runner's nightly jobs: collect garbage in every catalog, verify (and repair) every label."""

from __future__ import annotations

import threading
import time

from monodex.indexer.session import Session
from monodex.indexer.upkeep import gc, lifecycle, verify

from monodex import names
from monodex.errors import MonodexError
from monodex.schema.labels import NightlyGc, VerifyAnswer


def gc_every_catalog(s: Session, *, optimize: bool = True) -> NightlyGc:
    cfg = s.config()
    reports = {
        name: gc.collect(s.store, name, dry_run=False, now=time.time()).as_json() for name in cfg.catalogs
    }
    started = time.monotonic()
    if optimize:  # Edge builds its HNSW and merges segments only when asked; nights are idle
        s.store.optimize()
    return {"catalogs": reports, "optimize_seconds": round(time.monotonic() - started, 2)}


def verify_every_label(s: Session, stop: threading.Event) -> VerifyAnswer:
    """Nightly: drop labels whose branch is gone (catalogs with prune_labels), then verify every
    label from git and repair any drift found."""
    cfg = s.config()
    pruned = []
    if s.store.info() is not None:
        for cat in cfg.catalogs.values():
            if not cat.prune_labels or stop.is_set():
                continue
            try:
                for label in lifecycle.branchless_labels(s.store, s.paths, cat):
                    lifecycle.remove_label(s.store, s.paths, cat.name, label, by_user=False)
                    pruned.append(names.label_id(cat.name, label))
            except MonodexError as exc:
                pruned.append(f"{cat.name}: {exc.problem}")
    result = verify.verify(s, repair_drift=True, should_stop=stop.is_set)
    result["pruned"] = pruned
    result["failed"] = len(verify.failures(result["labels"]))
    return result
