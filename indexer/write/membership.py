"""Label membership changes, batched: one request per distinct new `active_label_ids` value."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from monodex.indexer.points import filters, membership
from monodex.indexer.store.base import Match, MatchAny, Record, Store

_FILE_BATCH = 256
# Membership work never needs chunk texts: on a 600k-chunk label they would be gigabytes.
_KEYS = ("file_id", *membership.KEYS)


@dataclass
class MembershipReport:
    points_updated: int = 0
    points_deleted: int = 0
    files: int = 0


def _apply(
    store: Store, records: Iterable[Record], change: Callable[[list[str]], list[str]]
) -> MembershipReport:
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    doomed: list[str] = []
    files: set[str] = set()
    for rec in records:
        before = membership.labels_of(rec.payload)
        after = change(before)
        if after == before:
            continue
        files.add(str(rec.payload.get("file_id")))
        if after:
            groups[tuple(after)].append(rec.id)
        else:
            doomed.append(rec.id)
    for labels, ids in groups.items():
        store.set_payload(ids, {membership.KEY: list(labels)})
    if doomed:
        store.delete(doomed)
    updated = sum(len(ids) for ids in groups.values())
    return MembershipReport(points_updated=updated, points_deleted=len(doomed), files=len(files))


def _points_of(store: Store, file_ids: Sequence[str]) -> Iterable[Record]:
    for i in range(0, len(file_ids), _FILE_BATCH):
        part = tuple(file_ids[i : i + _FILE_BATCH])
        yield from store.scroll(filters.chunks(MatchAny("file_id", part)), payload_keys=_KEYS)


def add_label(store: Store, file_ids: Sequence[str], label_id: str) -> MembershipReport:
    """Add label_id to every point of these files (sentinels included)."""

    def change(labels: list[str]) -> list[str]:
        return labels if label_id in labels else sorted([*labels, label_id])

    return _apply(store, _points_of(store, file_ids), change)


def remove_label(
    store: Store, label_id: str, *, keep: set[str] | None = None, catalog: str | None = None
) -> MembershipReport:
    """Remove label_id from every point whose file_id is not in keep; delete orphans."""
    flt = filters.label_chunks(label_id, *((Match("catalog", catalog),) if catalog else ()))
    records = store.scroll(flt, payload_keys=_KEYS)
    # Materialise before writing: never page through a result set that we are changing.
    stale = [r for r in records if keep is None or r.payload.get("file_id") not in keep]

    def change(labels: list[str]) -> list[str]:
        return [x for x in labels if x != label_id]

    return _apply(store, stale, change)


def remove_from_files(store: Store, file_ids: Sequence[str], label_id: str) -> MembershipReport:
    """Remove label_id from the points of the given files only (incremental refresh)."""

    def change(labels: list[str]) -> list[str]:
        return [x for x in labels if x != label_id]

    return _apply(store, list(_points_of(store, file_ids)), change)


def files_at(store: Store, label_id: str, paths: Iterable[str]) -> set[str]:
    """file_ids the label holds at these paths (every chunk is read, not only sentinels: an
    interrupted store leaves chunks whose sentinel was never written)."""
    ordered = sorted(paths)
    found: set[str] = set()
    for i in range(0, len(ordered), _FILE_BATCH):
        flt = filters.label_chunks(label_id, MatchAny("relative_path", tuple(ordered[i : i + _FILE_BATCH])))
        found.update(str(r.payload["file_id"]) for r in store.scroll(flt, payload_keys=("file_id",)))
    return found


def label_files(store: Store, label_id: str) -> int:
    """How many files the label holds (its sentinels)."""
    return store.count(filters.label_chunks(label_id, Match("chunk_ordinal", 1)))
