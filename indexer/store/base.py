"""The store interface both Qdrant adapters implement, in monodex's own small vocabulary.

Nothing above indexer/store/ sees a Qdrant type: filters, points and records are plain
dataclasses here, and each adapter translates them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from monodex.schema.payload import Key

DENSE = "dense"  # named dense vector (cosine)
LEXICAL = "lexical"  # named sparse vector (IDF modifier), for hybrid search
# Rank r in a list adds weight / (RRF_K + r). Qdrant's default 60 makes the top ranks nearly
# equal, so a hit ranked 5th by both lists beats one ranked 1st by one of them; 5 lets a clear
# first place count: MRR@10 +0.064 (sparo) and +0.027 (rushstack) on pull-request queries
# (bench/quality.py, docs/benchmarks.md).
RRF_K = 5

# Payload fields with a keyword index (DESIGN.md "Payload indexes"); chunk_ordinal is an integer.
KEYWORD_INDEXES = (
    Key.SOURCE_TYPE,
    Key.CATALOG,
    Key.ACTIVE_LABEL_IDS,
    Key.FILE_ID,
    Key.RELATIVE_PATH,
    Key.PACKAGE_NAME,
    Key.CHUNK_KIND,
    Key.EMBEDDER_ID,
    Key.LABEL_ID,
    Key.EMBEDDED_TEXT_HASH,  # chunk-level vector reuse looks chunks up by what was embedded
    Key.PATH_PREFIXES,  # --path
    Key.LANG,  # --lang
    Key.DEFINES,  # a one-name question finds its declaration (points/defined.py)
)
INTEGER_INDEXES = (Key.CHUNK_ORDINAL,)
# A chunk stored by phase one of a refresh (payload and lexical vector) whose dense vector phase
# two has not added yet carries dense_pending: True; a chunk stored whole has no such field or False.
PENDING = Key.DENSE_PENDING  # read/search.py's name for it
BOOL_INDEXES = (Key.DENSE_PENDING,)


@dataclass(frozen=True)
class Match:
    """key == value; for array fields (active_label_ids), 'contains value'."""

    key: str
    value: str | int | bool


@dataclass(frozen=True)
class MatchAny:
    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class IsEmpty:
    """The field is missing, null or an empty array."""

    key: str


@dataclass(frozen=True)
class Filter:
    """All of `must`, none of `must_not`, and at least one of `should` when it is not empty.
    A Filter is itself a condition: a label held as a base plus a delta is "(in the base and not
    at a changed path) or one of its own files" (points/membership.py)."""

    must: tuple[Condition, ...] = ()
    must_not: tuple[Condition, ...] = ()
    should: tuple[Condition, ...] = ()


Condition = Match | MatchAny | IsEmpty | Filter


@dataclass(frozen=True)
class SparseVector:
    indices: tuple[int, ...]
    values: tuple[float, ...]


@dataclass(frozen=True)
class Point:
    id: str  # UUID string
    payload: dict[str, Any]
    dense: Sequence[float] | None  # None: stored without one (phase one); payload[PENDING] says so
    sparse: SparseVector | None = None


@dataclass(frozen=True)
class Record:
    id: str
    payload: dict[str, Any]
    dense: list[float] | None = None  # only when asked for with_vectors=True


@dataclass(frozen=True)
class Scored:
    id: str
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True)
class CollectionInfo:
    dim: int
    embedder_id: str | None
    has_sparse: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class Store(Protocol):
    """A single collection. Every method is synchronous and durable when it returns."""

    def ensure_collection(self, *, dim: int, embedder_id: str) -> None:
        """Create the collection (named vectors + payload indexes) or check it matches.

        Raises MonodexError naming both dimensions/embedders when an existing collection differs.
        """

    def info(self) -> CollectionInfo | None:
        """None when the collection does not exist yet."""

    def upsert(self, points: Sequence[Point]) -> None: ...

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Record]:
        """Existing points among ids (missing ones are simply absent)."""

    def scroll(
        self,
        flt: Filter,
        *,
        with_vectors: bool = False,
        batch: int = 1000,
        payload_keys: Sequence[str] | None = None,
    ) -> Iterator[Record]:
        """Every point matching flt, in pages of `batch`, in id order; only payload_keys if given
        (membership changes on a large label must not pull every chunk's text)."""

    def count(self, flt: Filter) -> int: ...

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        """Merge payload keys into each of ids (one request for all ids)."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def set_dense(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> int:
        """Add each (id, dense vector) to its stored point and clear the point's PENDING flag.
        A point deleted meanwhile (GC of a label that moved on) is skipped: the number of points
        updated is returned."""

    def search(self, vector: Sequence[float], flt: Filter, *, limit: int) -> list[Scored]:
        """Dense cosine search restricted to flt."""

    def search_sparse(self, sparse: SparseVector, flt: Filter, *, limit: int) -> list[Scored]:
        """Lexical (sparse, IDF-weighted) search restricted to flt."""

    def query_hybrid(
        self,
        dense: Sequence[float],
        sparse: SparseVector,
        flt: Filter,
        *,
        limit: int,
        prefetch_limit: int,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Scored]:
        """Dense and sparse prefetches fused by Qdrant's own RRF, weighted (dense, lexical)."""

    def uncompacted(self) -> tuple[int, int]:
        """(points written since the last compaction, points stored): what `optimize` would merge,
        against the whole (a Qdrant server compacts by itself: (0, 0))."""

    def optimize(self) -> bool | None:
        """Build the vector index and merge segments now, blocking; whether there was anything to
        do (Edge does this only when asked). None: a Qdrant server, which optimizes by itself."""

    def roll(self) -> bool:
        """Release the memory this process holds for what it wrote (Edge: compact it, reopen);
        whether anything was done (a Qdrant server holds nothing here: False)."""

    def close(self) -> None: ...


# Every operation of a Store, by name: a wrapper (session.Serialized) covers each one.
STORE_METHODS = tuple(name for name in vars(Store) if not name.startswith("_"))
