"""A file read back as its label holds it (`monodex view`): its chunks by file id or by path, an
overlay's file (a worktree's uncommitted version) when the label does not hold that id."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from monodex.indexer.points import filters as stored
from monodex.indexer.points import membership, overlaymeta
from monodex.indexer.points.labelmeta import require_label
from monodex.indexer.store.base import Match, Store

from monodex import names
from monodex.errors import UsageError
from monodex.schema.payload import Key
from monodex.schema.search import ViewAnswer, ViewChunk


@dataclass(frozen=True)
class Selector:
    file_id: str
    first: int
    last: int | None  # None: to the end


def file_id_at(store: Store, *, catalog: str, label: str, path: str) -> str:
    """The file_id of `path` (normalised by ViewRequest) in the label, or an error saying the
    path is not indexed there."""
    require_label(store, catalog, label)
    rel = path
    lid = names.label_id(catalog, label)
    flt = stored.label_chunks(
        membership.of(store, lid), Match(Key.RELATIVE_PATH, rel), Match(Key.CHUNK_ORDINAL, 1)
    )
    for record in store.scroll(flt):
        return str(record.payload[Key.FILE_ID])
    raise UsageError(
        f"{rel} is not indexed in label {label!r} of catalog {catalog!r}",
        "check the path (relative to the repository root) or find the file with a search first",
    )


def view(store: Store, *, catalog: str, label: str, selector: Selector) -> ViewAnswer:
    require_label(store, catalog, label)
    held = membership.of(store, names.label_id(catalog, label))
    flt = stored.label_chunks(held, Match(Key.FILE_ID, selector.file_id))
    chunks = sorted((r.payload for r in store.scroll(flt)), key=lambda p: int(p[Key.CHUNK_ORDINAL]))
    if not chunks:  # a hit of a worktree's uncommitted file (an overlay over this label)
        chunks = _overlay_file(store, catalog, label, selector.file_id)
    if not chunks:
        raise UsageError(
            f"file {selector.file_id} is not in label {label!r} of catalog {catalog!r}",
            "take the file_id from 'monodex search' results of the same label",
        )
    picked = [
        c
        for c in chunks
        if c[Key.CHUNK_ORDINAL] >= selector.first
        and (selector.last is None or c[Key.CHUNK_ORDINAL] <= selector.last)
    ]
    if not picked:
        raise UsageError(
            f"file {selector.file_id} has chunks 1-{len(chunks)}; none match the selection",
            f"use :1-{len(chunks)} or :1-end",
        )
    keys = (
        Key.CHUNK_ORDINAL,
        Key.CHUNK_COUNT,
        Key.START_LINE,
        Key.END_LINE,
        Key.BREADCRUMB,
        Key.SYMBOL_NAME,
        Key.CHUNK_TYPE,
        Key.CHUNK_KIND,
        Key.TEXT,
    )
    return ViewAnswer(
        file_id=selector.file_id,
        relative_path=chunks[0][Key.RELATIVE_PATH],
        package_name=chunks[0].get(Key.PACKAGE_NAME),
        chunks=[cast(ViewChunk, {k: c.get(k) for k in keys}) for c in picked],
    )


def _overlay_file(store: Store, catalog: str, label: str, file_id: str) -> list[dict[str, Any]]:
    for o in overlaymeta.list_all(store, catalog):
        if o.label == label and o.current and file_id in o.file_ids:
            flt = stored.chunks(Match(Key.ACTIVE_LABEL_IDS, o.current), Match(Key.FILE_ID, file_id))
            return sorted((r.payload for r in store.scroll(flt)), key=lambda p: int(p[Key.CHUNK_ORDINAL]))
    return []
