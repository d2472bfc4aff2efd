"""Key changes in chunk payloads, batched: one request per distinct new `active_label_ids` value.

A base key is written here once, for every file of its commit (members/derive.py); a
working-directory label changes its own key in place. Moving a commit label writes no key."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from monodex.indexer.points import filters, membership
from monodex.indexer.points.membership import Held
from monodex.indexer.store.base import Match, MatchAny, Record, Store

from monodex.schema.payload import Key

_FILE_BATCH = 256
# Membership work never needs chunk texts: on a 600k-chunk label they would be gigabytes.
_KEYS = (Key.FILE_ID, Key.ACTIVE_LABEL_IDS)


@dataclass
class MembershipReport:
    points_updated: int = 0
    points_deleted: int = 0
    files: int = 0


def _apply(
    store: Store,
    records: Iterable[Record],
    change: Callable[[list[str]], list[str]],
    retiring: str = "",
) -> MembershipReport:
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    doomed: list[str] = []
    files: set[str] = set()
    fids: dict[str, str] = {}
    for rec in records:
        fids[rec.id] = str(rec.payload.get(Key.FILE_ID))
        before = membership.keys_of(rec.payload)
        after = change(before)
        if after == before:
            continue
        files.add(str(rec.payload.get(Key.FILE_ID)))
        if after:
            groups[tuple(after)].append(rec.id)
        else:
            doomed.append(rec.id)
    if doomed:  # a chunk with no key that a label holds over its base stays, keyless
        kept = membership.changed_files(store, retiring)
        if stay := [i for i in doomed if fids[i] in kept]:
            groups[()] += stay
        doomed = [i for i in doomed if fids[i] not in kept]
    for labels, ids in groups.items():
        store.set_payload(ids, {Key.ACTIVE_LABEL_IDS: list(labels)})
    if doomed:
        store.delete(doomed)
    updated = sum(len(ids) for ids in groups.values())
    return MembershipReport(points_updated=updated, points_deleted=len(doomed), files=len(files))


def _points_of(store: Store, file_ids: Sequence[str]) -> Iterable[Record]:
    for i in range(0, len(file_ids), _FILE_BATCH):
        part = tuple(file_ids[i : i + _FILE_BATCH])
        yield from store.scroll(filters.chunks(MatchAny(Key.FILE_ID, part)), payload_keys=_KEYS)


def add_label(store: Store, file_ids: Sequence[str], label_id: str) -> MembershipReport:
    """Add the key label_id to every point of these files (sentinels included)."""

    def change(labels: list[str]) -> list[str]:
        return labels if label_id in labels else sorted([*labels, label_id])

    return _apply(store, _points_of(store, file_ids), change)


def remove_label(
    store: Store,
    label_id: str,
    *,
    keep: set[str] | None = None,
    catalog: str | None = None,
    retiring: str = "",
) -> MembershipReport:
    """Remove the key label_id from every point whose file_id is not in keep; delete orphans
    (`retiring`: a delta point being let go, whose files it no longer keeps)."""
    flt = filters.label_chunks(Held(label_id, label_id), *((Match(Key.CATALOG, catalog),) if catalog else ()))
    records = store.scroll(flt, payload_keys=_KEYS)
    # Materialise before writing: never page through a result set that we are changing.
    stale = [r for r in records if keep is None or r.payload.get(Key.FILE_ID) not in keep]

    def change(labels: list[str]) -> list[str]:
        return [x for x in labels if x != label_id]

    return _apply(store, stale, change, retiring)


def remove_from_files(store: Store, file_ids: Sequence[str], label_id: str) -> MembershipReport:
    """Remove label_id from the points of the given files only (incremental refresh)."""

    def change(labels: list[str]) -> list[str]:
        return [x for x in labels if x != label_id]

    return _apply(store, list(_points_of(store, file_ids)), change)


def drop_files(store: Store, file_ids: Sequence[str], retiring: str = "") -> MembershipReport:
    """Delete the chunks of these files that carry no key and no label holds over its base (a
    removed label's own changed files; `retiring`: its delta point, deleted after this)."""
    keyless = [r for r in _points_of(store, file_ids) if not membership.keys_of(r.payload)]
    kept = membership.changed_files(store, retiring) if keyless else set()
    doomed = [r for r in keyless if str(r.payload.get(Key.FILE_ID)) not in kept]
    for i in range(0, len(doomed), 1000):
        store.delete([r.id for r in doomed[i : i + 1000]])
    return MembershipReport(
        points_deleted=len(doomed), files=len({r.payload.get(Key.FILE_ID) for r in doomed})
    )


def files_at(store: Store, label: Held, paths: Iterable[str] | None) -> set[str]:
    """file_ids the label holds at these paths, or anywhere when paths is None (every chunk is
    read, not only sentinels: an interrupted store leaves chunks whose sentinel was never written)."""
    found: set[str] = set()
    if paths is None:
        records = store.scroll(filters.label_chunks(label), payload_keys=(Key.FILE_ID,))
        return {str(r.payload[Key.FILE_ID]) for r in records}
    ordered = sorted(paths)
    for i in range(0, len(ordered), _FILE_BATCH):
        flt = filters.label_chunks(label, MatchAny(Key.RELATIVE_PATH, tuple(ordered[i : i + _FILE_BATCH])))
        found.update(str(r.payload[Key.FILE_ID]) for r in store.scroll(flt, payload_keys=(Key.FILE_ID,)))
    return found


def label_files(store: Store, label: Held) -> int:
    """How many files the label holds (its sentinels)."""
    return store.count(filters.label_chunks(label, Match(Key.CHUNK_ORDINAL, 1)))


def files_by_path(store: Store, key: str, paths: Iterable[str] | None = None) -> dict[str, set[str]]:
    """path -> file ids carrying the key: at `paths` every chunk is read (see files_at); for all
    paths, the sentinels (a base is complete: it was written after its files were stored)."""
    found: dict[str, set[str]] = {}
    keys = (Key.RELATIVE_PATH, Key.FILE_ID)
    if paths is None:
        flt = filters.chunks(Match(Key.ACTIVE_LABEL_IDS, key), Match(Key.CHUNK_ORDINAL, 1))
        scrolls = [store.scroll(flt, payload_keys=keys)]
    else:
        ordered = sorted(paths)
        scrolls = [
            store.scroll(
                filters.chunks(
                    Match(Key.ACTIVE_LABEL_IDS, key),
                    MatchAny(Key.RELATIVE_PATH, tuple(ordered[i : i + _FILE_BATCH])),
                ),
                payload_keys=keys,
            )
            for i in range(0, len(ordered), _FILE_BATCH)
        ]
    for records in scrolls:
        for r in records:
            found.setdefault(str(r.payload[Key.RELATIVE_PATH]), set()).add(str(r.payload[Key.FILE_ID]))
    return found


def release(
    store: Store, before: Held, after: Held, bases_in_use: Iterable[str], retiring: str = ""
) -> MembershipReport:
    """What a label let go (it moved to `after`, or was removed: `after` holds nothing): its old
    base key stripped when no label stands on it any more, and its old changed files deleted
    where no key and no label holds them. A move leaves no orphan behind for verify to find.

    `retiring`: the delta point it let go, which the caller deletes only after this returns: a
    crash in between leaves that point (gc drops it, and its files with it), never chunks that
    no key and no delta point names (which verify reports as orphans until gc runs)."""
    report = MembershipReport()
    if before.base and before.base != after.base and before.base not in set(bases_in_use):
        report = remove_label(store, before.base, retiring=retiring)
    own = drop_files(store, sorted(before.files - after.files), retiring)
    report.points_deleted += own.points_deleted
    report.files += own.files
    return report
