"""Overlay metadata points (DESIGN.md "overlay"): what a worktree's uncommitted files add to, and
hide from, its branch's label in a search from that worktree.

An overlay is never a label: its chunks carry a membership of its own, `overlay=<key>=<gen>`
(label grammar, so every tool that reads `active_label_ids` stays valid), which no label
metadata names, and its metadata is a point of another `source_type`, so `labels`, verify, the
fill job's label list and refresh never take it for a branch. The generation changes with
every update: an update stores the new file set under a new membership and then switches the
metadata to it in one upsert, so a search (or a SIGKILL) sees either the old overlay or the
new one, never a mix; memberships listed in `pending` are cleaned up by the next update.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import Any

import xxhash
from monodex.indexer.points.identity import string_to_uuid
from monodex.indexer.store.base import Filter, Match, Point, Store

from monodex import names
from monodex.schema.payload import Key, OverlayPayload

OVERLAY_METADATA = "overlay-metadata"  # source_type of an overlay's metadata point
PREFIX = "overlay="  # every overlay membership's label starts so


def key_for(worktree: str) -> str:
    """16 hex digits naming a worktree (its absolute, resolved path) in memberships and files."""
    return f"{xxhash.xxh64_intdigest(os.path.realpath(worktree).encode('utf-8', 'surrogateescape')):016x}"


def membership(catalog: str, key: str, generation: int) -> str:
    """The label id a generation's chunks carry in `active_label_ids`."""
    return names.label_id(catalog, f"{PREFIX}{key}={generation}")


def is_overlay(label_id: str) -> bool:
    return label_id.partition(":")[2].startswith(PREFIX)


@dataclass(frozen=True)
class OverlayFile:
    path: str
    blob_id: str
    file_id: str  # "" when the file is on disk but not indexed (binary, unreadable, ...)


@dataclass(frozen=True)
class OverlayState:
    catalog: str
    key: str
    worktree: str
    label: str  # the branch's label it lies over
    branch: str | None
    generation: int = 0
    current: str = ""  # the membership searches use; "" before the first update completes
    files: tuple[OverlayFile, ...] = ()  # dirty files on disk, indexed under `current`
    dirty: tuple[str, ...] = ()  # every crawlable dirty path: the label's file there is hidden
    pending: tuple[str, ...] = ()  # memberships an update started or left behind, to remove
    updated_at_unix_secs: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def file_ids(self) -> frozenset[str]:
        return frozenset(f.file_id for f in self.files if f.file_id)

    def payload(self) -> OverlayPayload:
        return {
            Key.SOURCE_TYPE: OVERLAY_METADATA,
            Key.CATALOG: self.catalog,
            Key.OVERLAY_KEY: self.key,
            Key.WORKTREE: self.worktree,
            Key.LABEL: self.label,
            Key.BRANCH: self.branch,
            Key.GENERATION: self.generation,
            Key.CURRENT: self.current,
            Key.FILES: [[f.path, f.blob_id, f.file_id] for f in self.files],
            Key.DIRTY: list(self.dirty),
            Key.PENDING_MEMBERSHIPS: list(self.pending),
            Key.UPDATED_AT: self.updated_at_unix_secs,
        }

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> OverlayState:
        return cls(
            catalog=str(p[Key.CATALOG]),
            key=str(p[Key.OVERLAY_KEY]),
            worktree=str(p[Key.WORKTREE]),
            label=str(p.get(Key.LABEL, "")),
            branch=p.get(Key.BRANCH),
            generation=int(p.get(Key.GENERATION, 0)),
            current=str(p.get(Key.CURRENT, "")),
            files=tuple(OverlayFile(str(a), str(b), str(c)) for a, b, c in p.get(Key.FILES) or ()),
            dirty=tuple(str(d) for d in p.get(Key.DIRTY) or ()),
            pending=tuple(str(m) for m in p.get(Key.PENDING_MEMBERSHIPS) or ()),
            updated_at_unix_secs=int(p.get(Key.UPDATED_AT, 0)),
        )


def point_id(catalog: str, key: str) -> str:
    # ':' twice: no catalog:label id can spell it, so no label's metadata point shares the id
    return string_to_uuid(f"{OVERLAY_METADATA}:{catalog}:{key}")


def read(store: Store, catalog: str, key: str) -> OverlayState | None:
    if store.info() is None:
        return None
    found = store.retrieve([point_id(catalog, key)])
    return OverlayState.from_payload(found[0].payload) if found else None


def write(store: Store, state: OverlayState, *, dim: int, now: float | None = None) -> OverlayState:
    """Store the state (one upsert: the switch an update's atomicity rests on); returns it stamped."""
    stamped = replace(state, updated_at_unix_secs=int(time.time() if now is None else now))
    point = Point(id=point_id(state.catalog, state.key), payload=dict(stamped.payload()), dense=[0.0] * dim)
    store.upsert([point])
    return stamped


def list_all(store: Store, catalog: str | None = None) -> list[OverlayState]:
    if store.info() is None:
        return []
    must = (Match(Key.SOURCE_TYPE, OVERLAY_METADATA), *((Match(Key.CATALOG, catalog),) if catalog else ()))
    states = [OverlayState.from_payload(r.payload) for r in store.scroll(Filter(must=must))]
    return sorted(states, key=lambda s: (s.catalog, s.worktree))


def delete(store: Store, state: OverlayState) -> None:
    store.delete([point_id(state.catalog, state.key)])
