"""The filters every query of stored points starts from (DESIGN.md "Storage"): how a label's
chunks, a catalog's chunks and label metadata are told apart, in one place."""

from __future__ import annotations

from collections.abc import Sequence

from monodex.indexer.points import membership
from monodex.indexer.points.membership import Held
from monodex.indexer.store.base import Condition, Filter, Match, MatchAny

from monodex.schema.payload import Key

CODE = "code"  # source_type of a chunk
LABEL_METADATA = "label-metadata"  # source_type of a label's metadata point


def chunks(*more: Condition) -> Filter:
    """Chunks of any label (never metadata points), narrowed by `more`."""
    return Filter(must=(Match(Key.SOURCE_TYPE, CODE), *more))


def narrowed(flt: Filter, *more: Condition) -> Filter:
    """`flt` with `more` conditions that must hold too."""
    return Filter(must=(*flt.must, *more), must_not=flt.must_not, should=flt.should)


def label_chunks(label: Held, *more: Condition) -> Filter:
    """The chunks of one label (the filter of every chunk query), narrowed by `more`.

    Membership alone decides: `label_id` already names the catalog, while a chunk's `catalog`
    payload is only the catalog that first stored it (identical files in two catalogs share
    chunks, since file ids exclude the catalog as in monodex 0.4)."""
    return chunks(membership.held_by(label), *more)


def label_pending(label: Held) -> Filter:
    """The chunks of one label still waiting for their dense vector. Only a chunk is ever stored
    with dense_pending true (write/pipeline.py), so the source_type condition is left out: it
    cost a third of the count (0.15 -> 0.10 s with 673,358 chunks waiting, every crawl's last step)."""
    return Filter(must=(membership.held_by(label), Match(Key.DENSE_PENDING, True)))


def labels_chunks(labels: Sequence[Held], *more: Condition, without: Sequence[Held] = ()) -> Filter:
    """The chunks held by any of `labels` and by none of `without` (a diff's side: "in A and
    not in B"), narrowed by `more`. One label and no `without` is label_chunks' filter."""
    exclude = tuple(membership.held_by(h) for h in without)
    return Filter(
        must=(Match(Key.SOURCE_TYPE, CODE), membership.held_by_any(labels), *more), must_not=exclude
    )


def catalog_chunks(catalog: str, *more: Condition) -> Filter:
    """The chunks a catalog first stored (garbage collection and orphans: by provenance)."""
    return chunks(Match(Key.CATALOG, catalog), *more)


def label_metadata(catalog: str | None = None) -> Filter:
    """The metadata points of every label, or of one catalog's labels."""
    must: tuple[Condition, ...] = (Match(Key.SOURCE_TYPE, LABEL_METADATA),)
    return Filter(must=must + ((Match(Key.CATALOG, catalog),) if catalog else ()))


def overlay_chunks(label: Held, overlay: str, hidden: tuple[str, ...], *more: Condition) -> Filter:
    """A label's chunks with a worktree's overlay laid over them (points/overlaymeta.py): the
    chunks of either membership, except the label's files at the paths the worktree changed
    (`hidden` file ids), narrowed by `more`."""
    members = membership.held_by_any((label, Held(overlay, overlay)) if overlay else (label,))
    return Filter(
        must=(Match(Key.SOURCE_TYPE, CODE), members, *more),
        must_not=(MatchAny(Key.FILE_ID, hidden),) if hidden else (),
    )
