"""Dense vectors already stored for an embedded text: an edited file is a new file, but most of
its chunks are not new text, so their vectors are copied, not computed again (phase one and two)."""

from __future__ import annotations

from collections.abc import Sequence

from monodex.indexer.points import filters
from monodex.indexer.store.base import Condition, Filter, Match, MatchAny, Store

from monodex.schema.payload import Key


def _with_vectors(embedder_id: str, *more: Condition) -> Filter:
    wanted = filters.chunks(Match(Key.EMBEDDER_ID, embedder_id), *more)
    return Filter(must=wanted.must, must_not=(Match(Key.DENSE_PENDING, True),))


def any_vectors(store: Store, embedder_id: str) -> bool:
    """Whether any chunk holds a vector of this model: none in a new index, whose crawl then
    looks up no stored vector (one look-up per file was 10 s of rushstack's phase one, cProfile)."""
    return store.count(_with_vectors(embedder_id)) > 0


def stored_vectors(store: Store, embedder_id: str, hashes: list[str]) -> dict[str, Sequence[float]]:
    """Vectors already stored by this model for these embedded texts (keyed by text hash): an
    edited file is a new file, but most of its chunks are not new text."""
    found: dict[str, Sequence[float]] = {}
    if not hashes:
        return found
    flt = _with_vectors(embedder_id, MatchAny(Key.EMBEDDED_TEXT_HASH, tuple(hashes)))
    for rec in store.scroll(flt, with_vectors=True, payload_keys=(Key.EMBEDDED_TEXT_HASH,)):
        if rec.dense is not None:
            found.setdefault(str(rec.payload[Key.EMBEDDED_TEXT_HASH]), rec.dense)
        if len(found) == len(hashes):
            break
    return found
