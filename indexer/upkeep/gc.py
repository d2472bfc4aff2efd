"""Garbage collection: chunks no label uses, and leftovers of interrupted crawls."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from monodex.indexer.points import filters, labelmeta, membership, overlaymeta
from monodex.indexer.store.base import Store
from monodex.indexer.upkeep import overlays

from monodex.schema.labels import GcAnswer
from monodex.schema.payload import Key

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
    keys_stripped: int = 0  # chunks that lost the key of a base no label stands on
    deltas_dropped: int = 0  # delta points no label names (a crash before a refresh's switch)
    overlays_dropped: dict[str, str] = field(default_factory=dict)  # worktree -> why

    def as_json(self) -> GcAnswer:
        return {
            "catalog": self.catalog,
            "dry_run": self.dry_run,
            "deleted_chunks": self.unlabeled_chunks + self.incomplete_chunks,
            "unlabeled_chunks": self.unlabeled_chunks,
            "incomplete_files": self.incomplete_files,
            "incomplete_chunks": self.incomplete_chunks,
            "text_bytes": self.bytes,
            "skipped_incomplete_because_crawl_in_progress": self.skipped_incomplete,
            "keys_stripped": self.keys_stripped,
            "delta_points_dropped": self.deltas_dropped,
            "overlays_dropped": dict(self.overlays_dropped),
        }


def _text_bytes(store: Store, ids: list[str]) -> int:
    total = 0
    for i in range(0, len(ids), 1000):
        total += sum(
            len(str(r.payload.get(Key.TEXT, "")).encode()) for r in store.retrieve(ids[i : i + 1000])
        )
    return total


def collect(store: Store, catalog: str, *, dry_run: bool, now: float) -> GcReport:
    report = GcReport(catalog=catalog, dry_run=dry_run)
    if store.info() is None:
        return report
    # first: the chunks only a dropped overlay held are unlabeled below
    report.overlays_dropped = overlays.prune(store, catalog, dry_run=dry_run)
    every = labelmeta.list_all(store)  # chunks are shared between catalogs: every label counts
    busy = overlays.updating(store, catalog, now) or any(
        not s.crawl_complete and now - s.updated_at_unix_secs < IN_PROGRESS_GRACE_SECONDS for s in every
    )
    named = {str(st.extra.get(Key.MEMBERSHIP_DELTA) or "") for st in every}
    unnamed = [i for i in membership.deltas(store) if i not in named]
    if unnamed and not busy and not dry_run:  # written by a refresh a crash stopped before its switch
        store.delete(unnamed)
    report.deltas_dropped = len(unnamed) if not busy else 0
    held = [membership.from_metadata(st.label_id, st.extra, store) for st in every]
    live = {h.base for h in held}
    own = membership.changed_files(store) if not busy else set()
    by_file: dict[str, list[tuple[str, dict[str, object]]]] = defaultdict(list)
    keys = (Key.FILE_ID, Key.CHUNK_ORDINAL, Key.FILE_COMPLETE, *membership.KEYS)
    for rec in store.scroll(filters.catalog_chunks(catalog), payload_keys=keys):
        by_file[str(rec.payload.get(Key.FILE_ID))].append((rec.id, rec.payload))
    doomed: list[str] = []
    stripped: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for fid, points in by_file.items():
        sentinel = next((p for _, p in points if p.get(Key.CHUNK_ORDINAL) == 1), None)
        complete = sentinel is not None and sentinel.get(Key.FILE_COMPLETE) is True
        if busy:  # a refresh may be writing a base, or chunks its delta will name: touch nothing
            report.skipped_incomplete |= not complete
            continue
        if not complete:
            report.incomplete_files += 1
            report.incomplete_chunks += len(points)
            doomed.extend(i for i, _ in points)
            continue
        for i, p in points:
            ks = membership.keys_of(p)
            alive = [k for k in ks if k in live or overlaymeta.is_overlay(k)]
            if not alive and fid not in own:
                report.unlabeled_chunks += 1
                doomed.append(i)
            elif alive != ks:  # a base no label stands on any more
                stripped[tuple(alive)].append(str(i))
    report.keys_stripped = sum(len(ids) for ids in stripped.values())
    if not dry_run:
        for kept_keys, ids in stripped.items():
            for n in range(0, len(ids), 1000):
                store.set_payload(ids[n : n + 1000], {Key.ACTIVE_LABEL_IDS: list(kept_keys)})
    report.point_ids = doomed
    report.bytes = _text_bytes(store, doomed)
    if not dry_run:
        for n in range(0, len(doomed), 1000):
            store.delete(doomed[n : n + 1000])
    return report
