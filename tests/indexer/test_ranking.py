"""Ranking of fused hits: ties are broken the same way every time."""

from __future__ import annotations

from monodex.indexer.read import ranking
from monodex.indexer.store.base import Scored


def _hit(path: str, ordinal: int, score: float) -> Scored:
    payload = {"relative_path": path, "chunk_ordinal": ordinal, "file_id": path}
    return Scored(id=f"{path}:{ordinal}", score=score, payload=payload)


def test_equal_scores_come_back_by_path_then_chunk_whatever_order_the_engine_gave() -> None:
    """RRF fusion ties often (0.2 = 1/5 for several hits); Qdrant returns tied points in no fixed
    order, so the same search could list them differently from one index to the next."""
    hits = [
        _hit("src/b.ts", 2, 0.5),
        _hit("src/c.ts", 1, 0.2),
        _hit("src/a.ts", 3, 0.2),
        _hit("src/a.ts", 1, 0.2),
    ]
    for order in (hits, list(reversed(hits))):
        kept = ranking.rank(order, limit=10, per_file=10, include_tests=True)
        assert [(k.hit.payload["relative_path"], k.hit.payload["chunk_ordinal"]) for k in kept] == [
            ("src/b.ts", 2),
            ("src/a.ts", 1),
            ("src/a.ts", 3),
            ("src/c.ts", 1),
        ]
        assert [k.position for k in kept] == [1, 2, 3, 4]
