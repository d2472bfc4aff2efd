"""The mmap layout of Edge shards (issue 25): compacted segments are read on demand, so opening a
shard (what every CLI command without a runner pays) no longer builds every point's structures.
Shards made before it move to it at their next compaction, without rewriting a vector."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from monodex.indexer.store import edge
from monodex.indexer.store.base import (
    BOOL_INDEXES,
    DENSE,
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    LEXICAL,
    Filter,
    Match,
    Point,
    SparseVector,
)
from monodex.indexer.store.edge import EdgeStore

DIM = 4
INDEXES = (*KEYWORD_INDEXES, *INTEGER_INDEXES, *BOOL_INDEXES)


def _pt(i: int) -> Point:
    payload = {
        "source_type": "code",
        "catalog": "acme",
        "active_label_ids": ["acme:main"] + (["acme:dev"] if i % 3 == 0 else []),
        "relative_path": f"src/f{i % 7}.ts",
        "chunk_ordinal": i,
        "dense_pending": i % 4 == 0,
    }
    # every score distinct: ties may come back in either order once the segments change
    dense = [1.0, i / 60, (i * 7 % 13) / 13, float(i % 3)]
    return Point(str(uuid.UUID(int=i + 1)), payload, dense, SparseVector((i % 9, 30), (1.0, 0.5 + i / 1000)))


def _shard_as_before(root: Path) -> None:
    """A shard exactly as the builds before the layout made it: Edge's in-memory defaults,
    indexes by schema type, and no layout in the metadata."""
    d = root / "monodex"
    d.mkdir()
    config = qe.EdgeConfig(
        vectors={DENSE: qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)},
        sparse_vectors={LEXICAL: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    shard = qe.EdgeShard.create(str(d), config)
    types = {**dict.fromkeys(KEYWORD_INDEXES, qe.PayloadSchemaType.Keyword),
             **dict.fromkeys(INTEGER_INDEXES, qe.PayloadSchemaType.Integer),
             **dict.fromkeys(BOOL_INDEXES, qe.PayloadSchemaType.Bool)}  # fmt: skip
    for key, kind in types.items():
        shard.update(qe.UpdateOperation.create_field_index(key, kind))
    shard.flush()
    shard.close()
    meta = {
        "dim": DIM,
        "embedder_id": "e",
        "keyword_indexes": list(KEYWORD_INDEXES),
        "bool_indexes": list(BOOL_INDEXES),
    }
    (d / edge.META).write_text(json.dumps(meta))


def _answers(s: EdgeStore) -> list[Any]:
    dev = Filter(must=(Match("source_type", "code"), Match("active_label_ids", "acme:dev")))
    pending = Filter(must=(Match("dense_pending", True),))
    hits = s.query_hybrid(
        dense=[1.0, 2.0, 0.5, 1.0],
        sparse=SparseVector((3, 30), (1.0, 1.0)),
        flt=dev,
        limit=8,
        prefetch_limit=20,
    )
    return [s.count(dev), s.count(pending), [(h.id, round(h.score, 5)) for h in hits]]


def _indexes_on_disk(root: Path) -> dict[str, bool]:
    shard = qe.EdgeShard.load(str(root / "monodex"))
    try:
        return {
            k: bool(v.params is not None and v.params.on_disk) for k, v in shard.info().payload_schema.items()
        }
    finally:
        shard.close()


def _old_shard_with_points(root: Path) -> list[Any]:
    """A shard made before the layout, holding 60 points; what it answers."""
    _shard_as_before(root)
    s = EdgeStore(root, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(i) for i in range(60)])
    before = _answers(s)
    s.close()
    return before


def test_a_new_shard_is_made_with_the_mmap_layout(tmp_path: Path) -> None:
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.close()
    assert json.loads((tmp_path / "monodex" / edge.META).read_text())["layout"] == edge.LAYOUT
    assert _indexes_on_disk(tmp_path) == dict.fromkeys(INDEXES, True)
    stored = json.loads((tmp_path / "monodex" / "edge_config.json").read_text())
    assert stored["vectors"][DENSE]["on_disk"] and stored["sparse_vectors"][LEXICAL]["on_disk"]
    assert stored["hnsw_config"]["on_disk"]


def test_a_shard_made_before_moves_to_the_layout_at_compaction_and_answers_the_same(tmp_path: Path) -> None:
    before = _old_shard_with_points(tmp_path)
    assert not any(_indexes_on_disk(tmp_path).values())  # opening alone changes nothing

    s = EdgeStore(tmp_path, "monodex")
    assert s.optimize() is True  # moved, even where Edge found nothing to merge
    assert _answers(s) == before
    s.close()
    assert json.loads((tmp_path / "monodex" / edge.META).read_text())["layout"] == edge.LAYOUT
    assert _indexes_on_disk(tmp_path) == dict.fromkeys(INDEXES, True)
    s = EdgeStore(tmp_path, "monodex")  # reopened from disk: nothing lost, nothing re-embedded
    assert _answers(s) == before and s.count(Filter()) == 60
    s.close()


def test_a_move_killed_between_an_index_delete_and_create_finishes_at_the_next_open(tmp_path: Path) -> None:
    before = _old_shard_with_points(tmp_path)
    # what a SIGKILL inside EdgeStore._relayout leaves: MOVING written, two indexes dropped
    meta_file = tmp_path / "monodex" / edge.META
    meta_file.write_text(json.dumps({**json.loads(meta_file.read_text()), "layout": edge.MOVING}))
    shard = qe.EdgeShard.load(str(tmp_path / "monodex"))
    for key in ("active_label_ids", "dense_pending"):
        shard.update(qe.UpdateOperation.delete_field_index(key))
    shard.flush()
    shard.close()

    s = EdgeStore(tmp_path, "monodex")
    assert _answers(s) == before  # a search is what opened it
    s.close()
    assert json.loads(meta_file.read_text())["layout"] == edge.LAYOUT
    assert _indexes_on_disk(tmp_path) == dict.fromkeys(INDEXES, True)
