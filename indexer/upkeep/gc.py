"""Garbage collection: chunks no label uses, and leftovers of interrupted crawls."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from monodex.indexer.points import filters, labelmeta, membership
from monodex.indexer.store.base import Store
from monodex.indexer.upkeep import overlays

# A label whose crawl was marked in progress this recently may still be writing its files.
IN_PROGRESS_GRACE_SECONDS = 3600


@dataclass
class GcReport:
    catalog: str
    dry_run: bool
    unlabeled_chunks: int = 0
    incomplete_files: int = 0
    incomplete_chunks: int = 0
    bytes: int = 0
    skipped_incomplete: bool = False
    point_ids: list[str] = field(default_factory=list)
    overlays_dropped: dict[str, str] = field(default_factory=dict)  # worktree -> why

    def as_json(self) -> dict[str, object]:
        return {
            "catalog": self.catalog,
            "dry_run": self.dry_run,
            "deleted_chunks": self.unlabeled_chunks + self.incomplete_chunks,
            "unlabeled_chunks": self.unlabeled_chunks,
            "incomplete_files": self.incomplete_files,
            "incomplete_chunks": self.incomplete_chunks,
            "text_bytes": self.bytes,
            "skipped_incomplete_because_crawl_in_progress": self.skipped_incomplete,
            "overlays_dropped": dict(self.overlays_dropped),
        }


def _text_bytes(store: Store, ids: list[str]) -> int:
    total = 0
    for i in range(0, len(ids), 1000):
        total += sum(len(str(r.payload.get("text", "")).encode()) for r in store.retrieve(ids[i : i + 1000]))
    return total


def collect(store: Store, catalog: str, *, dry_run: bool, now: float) -> GcReport:
    report = GcReport(catalog=catalog, dry_run=dry_run)
    if store.info() is None:
        return report
    # first: the chunks only a dropped overlay held are unlabeled below
    report.overlays_dropped = overlays.prune(store, catalog, dry_run=dry_run)
    busy = overlays.updating(store, catalog, now) or any(
        not s.crawl_complete and now - s.updated_at_unix_secs < IN_PROGRESS_GRACE_SECONDS
        for s in labelmeta.list_all(store, catalog)
    )
    by_file: dict[str, list[tuple[str, dict[str, object]]]] = defaultdict(list)
    keys = ("file_id", "chunk_ordinal", "file_complete", *membership.KEYS)
    for rec in store.scroll(filters.catalog_chunks(catalog), payload_keys=keys):
        by_file[str(rec.payload.get("file_id"))].append((rec.id, rec.payload))
    doomed: list[str] = []
    for points in by_file.values():
        sentinel = next((p for _, p in points if p.get("chunk_ordinal") == 1), None)
        complete = sentinel is not None and sentinel.get("file_complete") is True
        if not complete and not busy:
            report.incomplete_files += 1
            report.incomplete_chunks += len(points)
            chosen = points
        else:
            report.skipped_incomplete |= not complete
            chosen = [(i, p) for i, p in points if not membership.labels_of(p)]
            report.unlabeled_chunks += len(chosen)
        doomed.extend(i for i, _ in chosen)
    report.point_ids = doomed
    report.bytes = _text_bytes(store, doomed)
    if not dry_run:
        for i in range(0, len(doomed), 1000):
            store.delete(doomed[i : i + 1000])
    return report
