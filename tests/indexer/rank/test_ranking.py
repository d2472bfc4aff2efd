"""Ranking of fused hits: ties are broken the same way every time."""

from __future__ import annotations

from monodex.indexer.rank import ranking
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


def test_a_test_file_moves_down_twenty_files_however_many_chunks_the_files_above_it_have() -> None:
    """Demotion counts result places (distinct files), not chunks: a source file with many
    matching chunks above a test used to absorb the places, and the test kept slot 2. Twenty
    places, not ten: half a first page of tests no longer leaves a test among the first ten."""
    hits = [_hit("src/a.ts", 1, 1.0), _hit("src/a.test.ts", 1, 0.95)]
    hits += [_hit("src/a.ts", i, 0.9 - i / 100) for i in range(2, 14)]  # a.ts: 12 more chunks
    others = [f"src/other{i:02}.ts" for i in range(21)]
    hits += [_hit(p, 1, 0.5 - i / 100) for i, p in enumerate(others)]
    kept = ranking.rank(hits, limit=30, per_file=1, include_tests=False)
    paths = [k.hit.payload["relative_path"] for k in kept]
    assert paths == ["src/a.ts", *others[:20], "src/a.test.ts", others[20]]
    assert kept[21].role == "test" and kept[21].position == 2  # its place before the demotion


def test_tests_crowding_the_top_leave_ten_source_files_ahead_of_them() -> None:
    """Four tests among a change request's first files used to come back at places 7-10 (ten
    file places down counted the tests themselves): the first page holds ten source files."""
    hits = [_hit(f"test/t{i}.test.ts", 1, 1.0 - i / 100) for i in range(4)]
    others = [f"src/s{i:02}.ts" for i in range(14)]
    hits += [_hit(p, 1, 0.9 - i / 100) for i, p in enumerate(others)]
    kept = ranking.rank(hits, limit=10, per_file=1, include_tests=False)
    assert [k.hit.payload["relative_path"] for k in kept] == others[:10]


def test_demotion_in_files_keeps_the_source_order_with_several_hits_a_file() -> None:
    """With per_file above one, the source chunks keep their score order (a file's second chunk
    is not pulled up next to its first)."""
    hits = [
        _hit("src/a.ts", 1, 1.0),
        _hit("src/b.ts", 1, 0.9),
        _hit("src/a.ts", 2, 0.8),
        _hit("src/c.ts", 1, 0.7),
    ]
    kept = ranking.rank(hits, limit=10, per_file=2, include_tests=False)
    assert [(k.hit.payload["relative_path"], k.hit.payload["chunk_ordinal"]) for k in kept] == [
        ("src/a.ts", 1),
        ("src/b.ts", 1),
        ("src/a.ts", 2),
        ("src/c.ts", 1),
    ]
