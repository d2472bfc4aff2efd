"""Compaction when it helps (issue 25): the Edge adapter counts what was written since the last
compaction, across processes, and a compaction asked for compacts what is appendable."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import qdrant_edge as qe
from monodex.indexer.store import edge
from monodex.indexer.store.base import Filter, Match, Point, SparseVector
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.upkeep import compaction

DIM = 384  # the shipped model's: Edge's indexing threshold is in KB of vectors


def _pt(i: int, rng: random.Random) -> Point:
    payload = {
        "source_type": "code",
        "catalog": "acme",
        "active_label_ids": ["acme:main"],
        "chunk_ordinal": i,
    }
    dense = [rng.uniform(-1, 1) for _ in range(DIM)]
    return Point(str(uuid.UUID(int=i + 1)), payload, dense, SparseVector((i % 50, 60), (1.0, 0.5)))


def _segments(root: Path) -> int:
    shard = qe.EdgeShard.load(str(root / "monodex"))
    try:
        return int(shard.info().segments_count)
    finally:
        shard.close()


def _top(s: EdgeStore) -> list[str]:
    flt = Filter(must=(Match("active_label_ids", "acme:main"),))
    return [h.id for h in s.search([0.5] * DIM, flt, limit=10)]


def test_points_written_since_the_last_compaction_are_counted_across_processes(tmp_path: Path) -> None:
    rng = random.Random(7)
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(i, rng) for i in range(60)])
    s.set_payload([str(uuid.UUID(int=i + 1)) for i in range(10)], {"chunk_kind": "x"})
    assert s.uncompacted() == (70, 60)
    s.close()
    s = EdgeStore(tmp_path, "monodex")  # another process: the count was kept at close
    s.delete([str(uuid.UUID(int=1))])
    assert s.uncompacted() == (71, 59)
    s.optimize()
    assert s.uncompacted() == (0, 59)
    s.close()
    s = EdgeStore(tmp_path, "monodex")
    assert s.uncompacted() == (0, 59)
    s.close()


def test_compaction_helps_once_the_writes_reach_a_share_of_the_index() -> None:
    assert not compaction.helps(compaction.MIN_WRITES - 1, 0)  # a small index never compacts on a crawl
    assert compaction.helps(compaction.MIN_WRITES, 0)
    assert not compaction.helps(compaction.MIN_WRITES, 100_000)
    assert compaction.helps(25_000, 100_000)


def test_a_shard_made_before_the_threshold_compacts_its_appendable_segment_when_asked(tmp_path: Path) -> None:
    """800 points of 384 dims (1.2 MB of vectors) stayed in the appendable segment through
    optimize() under Edge's 10,000 KB default, so every new process kept building them."""
    rng = random.Random(11)
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.close()
    # as the builds before INDEXING_KB made it: the mmap layout with Edge's default optimizers
    d = tmp_path / "monodex"
    meta = json.loads((d / edge.META).read_text())
    del meta["indexing_kb"]
    (d / edge.META).write_text(json.dumps(meta))
    stored = json.loads((d / "edge_config.json").read_text())
    stored.pop("optimizers")
    (d / "edge_config.json").write_text(json.dumps(stored))

    s = EdgeStore(tmp_path, "monodex")
    s.upsert([_pt(i, rng) for i in range(800)])
    before = _top(s)
    s.close()
    assert _segments(tmp_path) == 1
    s = EdgeStore(tmp_path, "monodex")
    assert s.optimize() is True
    assert _top(s) == before and s.count(Filter()) == 800
    s.close()
    assert _segments(tmp_path) == 2  # the compacted one, and an empty appendable one for writes
    assert json.loads((d / edge.META).read_text())["indexing_kb"] == edge.INDEXING_KB
    s = EdgeStore(tmp_path, "monodex")
    assert _top(s) == before and s.uncompacted() == (0, 800)
    s.close()


def test_rolling_converts_what_was_written_and_the_compaction_after_merges(tmp_path: Path) -> None:
    """A large crawl rolls (issue 36): each roll turns only the points written since the last
    one into a segment of its own and merges nothing, however many segments there are (a merge
    in every roll rewrote segments that grow with the index: 2.2 GB at 100,000 files); the
    writes still count as uncompacted, so the compaction after the crawl merges them."""
    rng = random.Random(13)
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    rolls = edge.SEGMENTS + 3
    for part in range(rolls):
        s.upsert([_pt(part * 800 + i, rng) for i in range(800)])
        assert s.roll() is True
        assert s.uncompacted() == (800 * (part + 1), 800 * (part + 1))
    top = _top(s)
    s.close()
    assert _segments(tmp_path) == rolls + 1  # each roll's own, one appendable for the next writes
    s = EdgeStore(tmp_path, "monodex")
    assert _top(s) == top and s.count(Filter()) == 800 * rolls
    assert s.optimize() is True
    assert _top(s) == top and s.uncompacted() == (0, 800 * rolls)
    s.close()
    assert _segments(tmp_path) <= edge.SEGMENTS + 1
    assert json.loads((tmp_path / "monodex" / edge.META).read_text())["segments"] == edge.SEGMENTS


def test_a_roll_between_two_pages_of_a_scroll_is_not_seen_by_the_reader(tmp_path: Path) -> None:
    """The crawl's producer may page through stored vectors while its uploader rolls the shard."""
    rng = random.Random(17)
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(i, rng) for i in range(900)])
    pages = s.scroll(Filter(), batch=100)
    first = [next(pages) for _ in range(150)]
    s.roll()
    assert len(first) + len(list(pages)) == 900
    s.close()
