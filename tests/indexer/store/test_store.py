"""One suite, both adapters: Qdrant Edge in-process and qdrant-client (local mode)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from monodex.indexer.session import Serialized
from monodex.indexer.store import edge, open_store
from monodex.indexer.store.base import (
    STORE_METHODS,
    Filter,
    IsEmpty,
    Match,
    MatchAny,
    Point,
    SparseVector,
    Store,
)
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.store.server import ServerStore
from qdrant_client import QdrantClient

from monodex.disk.paths import Paths
from monodex.errors import MonodexError
from monodex.settings.config import QdrantConfig

DIM = 4
# qdrant-client's local mode (the server adapter's test double) ignores payload indexes, and says so.
pytestmark = pytest.mark.filterwarnings("ignore:Payload indexes have no effect:UserWarning")


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s: Any = (
        EdgeStore(tmp_path, "monodex")
        if request.param == "edge"
        else ServerStore(QdrantClient(":memory:"), "monodex")
    )
    yield s
    s.close()


def _pt(i: int, labels: list[str], *, vec: list[float] | None = None, **extra: Any) -> Point:
    payload = {
        "source_type": "code",
        "catalog": "acme",
        "active_label_ids": labels,
        "file_id": f"f{i % 5}",
        "chunk_ordinal": i,
        "flag": i % 2 == 0,
        "none": None,
        **extra,
    }
    return Point(
        str(uuid.UUID(int=i + 1)),
        payload,
        vec or [1.0, float(i % 7), 0.5, float(i % 3)],
        SparseVector((i % 10, 20), (1.0, 0.5)) if i % 2 else None,
    )


def test_missing_collection_reads_empty(store: Store, tmp_path: Path) -> None:
    assert store.info() is None
    assert (
        store.count(Filter()) == 0
        and list(store.scroll(Filter())) == []
        and store.retrieve(["00000000-0000-0000-0000-000000000001"]) == []
    )
    sparse = SparseVector((1,), (1.0,))
    assert store.search([1.0] * DIM, Filter(), limit=3) == []
    assert store.search_sparse(sparse, Filter(), limit=3) == []
    assert store.query_hybrid([1.0] * DIM, sparse, Filter(), limit=3, prefetch_limit=9) == []
    assert store.info() is None and list(tmp_path.iterdir()) == []  # reading created nothing


def test_ensure_collection_creates_then_checks(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e:v1")
    store.ensure_collection(dim=DIM, embedder_id="e:v1")
    info = store.info()
    assert info is not None and (info.dim, info.embedder_id) == (DIM, "e:v1")
    with pytest.raises(MonodexError) as dim_err:
        store.ensure_collection(dim=8, embedder_id="e:v1")
    assert "4 dims" in dim_err.value.problem and "8 dims" in dim_err.value.problem
    with pytest.raises(MonodexError) as emb_err:
        store.ensure_collection(dim=DIM, embedder_id="other:v1")
    assert "e:v1" in emb_err.value.problem and "re-crawl" in emb_err.value.hint


def test_upsert_retrieve_roundtrip(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    p = _pt(1, ["acme:main", "acme:dev"], text="héllo\r\n", n=3)
    store.upsert([p])
    got = store.retrieve([p.id, str(uuid.UUID(int=999))], with_vectors=True)
    assert len(got) == 1 and got[0].id == p.id and got[0].payload == p.payload
    assert got[0].payload["flag"] is False and got[0].payload["none"] is None
    assert type(got[0].payload["chunk_ordinal"]) is int and got[0].payload["active_label_ids"] == [
        "acme:main",
        "acme:dev",
    ]
    assert got[0].dense is not None and len(got[0].dense) == DIM
    assert store.retrieve([p.id])[0].dense is None
    assert store.retrieve([]) == [] and store.retrieve([str(uuid.UUID(int=998))]) == []


def test_scroll_pages_filters_and_payload_keys(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    store.upsert([_pt(i, ["acme:main"] if i % 2 else ["acme:dev"]) for i in range(350)])
    every = [r.id for r in store.scroll(Filter(), batch=100)]  # four pages
    assert len(every) == len(set(every)) == 350 and every == sorted(every)
    main = list(store.scroll(Filter(must=(Match("active_label_ids", "acme:main"),)), batch=40))
    assert len(main) == 175 and all("acme:main" in r.payload["active_label_ids"] for r in main)
    anyf = store.count(Filter(must=(MatchAny("file_id", ("f1", "f2")),)))
    assert anyf == 140
    assert store.count(Filter(must_not=(Match("file_id", "f0"),))) == 280
    slim = list(store.scroll(Filter(), payload_keys=["file_id", "chunk_ordinal"], batch=64))
    assert len(slim) == 350 and all(set(r.payload) == {"file_id", "chunk_ordinal"} for r in slim)
    assert store.count(Filter(must=(Match("flag", True),), must_not=(MatchAny("file_id", ("f0",)),))) == 140


def test_set_payload_many_and_is_empty_and_delete(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    pts = [_pt(i, ["acme:main"]) for i in range(30)]
    store.upsert(pts)
    store.set_payload([p.id for p in pts[:12]], {"active_label_ids": []})
    assert store.count(Filter(must=(IsEmpty("active_label_ids"),))) == 12
    assert store.retrieve([pts[0].id])[0].payload["file_id"] == "f0"  # merged, not replaced
    store.set_payload([p.id for p in pts[12:]], {"active_label_ids": ["acme:main", "acme:v2"], "new": 1})
    assert store.count(Filter(must=(Match("active_label_ids", "acme:v2"), Match("new", 1)))) == 18
    assert store.count(Filter(must_not=(IsEmpty("active_label_ids"),))) == 18
    store.delete([p.id for p in pts[:12]])
    assert store.count(Filter()) == 18


def test_search_respects_filters_and_ignores_metadata_points(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    store.upsert([_pt(i, ["acme:main"] if i < 10 else ["acme:dev"]) for i in range(20)])
    meta = Point(str(uuid.UUID(int=5000)), {"source_type": "label-metadata", "catalog": "acme"}, [0.0] * DIM)
    store.upsert([meta])
    flt = Filter(must=(Match("source_type", "code"), Match("active_label_ids", "acme:main")))
    hits = store.search([1.0, 1.0, 0.5, 1.0], flt, limit=50)
    assert len(hits) == 10 and all(h.payload["active_label_ids"] == ["acme:main"] for h in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert store.retrieve([meta.id])[0].payload["source_type"] == "label-metadata"
    assert meta.id not in {h.id for h in store.search([0.0] * DIM, Filter(must=flt.must[:1]), limit=50)}
    assert store.count(Filter(must=(Match("source_type", "label-metadata"),))) == 1


def test_sparse_and_hybrid_queries(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    store.upsert([_pt(i, ["acme:main"]) for i in range(20)])
    flt = Filter(must=(Match("source_type", "code"),))
    lexical = store.search_sparse(SparseVector((3,), (1.0,)), flt, limit=5)
    assert lexical and all(h.payload["chunk_ordinal"] % 10 == 3 for h in lexical)
    fused = store.query_hybrid(
        [1.0, 3.0, 0.5, 0.0], SparseVector((3,), (1.0,)), flt, limit=5, prefetch_limit=20
    )
    assert len(fused) == 5 and fused[0].payload["chunk_ordinal"] % 10 == 3
    dense_only = store.query_hybrid(
        [1.0, 3.0, 0.5, 0.0], SparseVector((3,), (1.0,)), flt, limit=5, prefetch_limit=20, weights=(1.0, 0.0)
    )
    assert [h.id for h in dense_only] == [h.id for h in store.search([1.0, 3.0, 0.5, 0.0], flt, limit=5)]
    lexical_first = store.query_hybrid(
        [1.0, 3.0, 0.5, 0.0], SparseVector((3,), (1.0,)), flt, limit=2, prefetch_limit=20, weights=(0.1, 1.0)
    )
    assert {h.id for h in lexical_first} == {h.id for h in lexical[:2]}  # tied lexical scores: any order


def test_edge_persists_and_refuses_a_second_owner(tmp_path: Path) -> None:
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(i, ["acme:main"]) for i in range(5)])
    code = (
        f"from pathlib import Path; from monodex.indexer.store.edge import EdgeStore;"
        f"from monodex.indexer.store.base import Filter; import monodex.indexer.store.edge as e; e.LOCK_WAIT_SECONDS = 0.3; EdgeStore(Path({str(tmp_path)!r}), 'monodex').count(Filter())"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode != 0 and "in use by another process" in proc.stderr  # after LOCK_WAIT_SECONDS
    assert f"pid {os.getpid()};" in proc.stderr  # names the owner
    s.upsert([_pt(i, ["acme:main"]) for i in range(5, 9)])  # the owner is undisturbed by the attempt
    s.close()
    again = EdgeStore(tmp_path, "monodex")
    assert again.count(Filter()) == 9 and again.info() is not None
    again.ensure_collection(dim=DIM, embedder_id="e")
    again.close()


def test_edge_second_owner_in_one_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edge, "LOCK_WAIT_SECONDS", 0.1)
    first, second = EdgeStore(tmp_path, "monodex"), EdgeStore(tmp_path, "monodex")
    first.ensure_collection(dim=DIM, embedder_id="e")
    with pytest.raises(MonodexError) as busy:
        second.count(Filter())
    assert f"(pid {os.getpid()};" in busy.value.problem and "runner" in busy.value.hint
    # the runner refuses to start while another command holds the index: "start it" was no way out
    assert "to search while a crawl runs, start the runner" not in busy.value.hint
    assert "the runner cannot start while it holds the index" in busy.value.hint
    first.close()
    assert second.count(Filter()) == 0
    second.close()


def test_edge_recovers_from_an_interrupted_create(tmp_path: Path) -> None:
    (tmp_path / "monodex" / "segments").mkdir(parents=True)  # no sidecar: create never finished
    (tmp_path / "monodex" / "edge_config.json").write_text("{}")
    s = EdgeStore(tmp_path, "monodex")
    assert s.info() is None
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(1, ["acme:main"])])
    assert s.count(Filter()) == 1
    s.close()


def test_collections_are_separate_shards(tmp_path: Path) -> None:
    a, b = EdgeStore(tmp_path, "a"), EdgeStore(tmp_path, "b")
    a.ensure_collection(dim=DIM, embedder_id="e")
    b.ensure_collection(dim=8, embedder_id="big")
    a.upsert([_pt(1, ["x"])])
    assert (a.count(Filter()), b.count(Filter())) == (1, 0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "b"]
    a.close()
    b.close()


def test_server_unreachable_is_a_monodex_error() -> None:
    s = ServerStore.from_url("http://127.0.0.1:9", None, "monodex")
    with pytest.raises(MonodexError) as err:
        s.info()
    assert "qdrant.url" in err.value.hint
    s.close()


def test_open_store_picks_the_adapter_lazily(tmp_path: Path) -> None:
    code = (
        "import sys; from monodex.indexer.store import open_store;"
        "assert not any(m.startswith(('qdrant_edge', 'qdrant_client')) for m in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    paths = Paths(tmp_path / "c", tmp_path / "d", tmp_path / "s", tmp_path / "r")
    edge_store = open_store(QdrantConfig(collection="x"), paths)
    assert isinstance(edge_store, EdgeStore) and edge_store.dir == paths.shard_dir / "x"
    custom = open_store(QdrantConfig(path=tmp_path / "elsewhere"), paths)
    assert isinstance(custom, EdgeStore) and custom.dir == tmp_path / "elsewhere" / "monodex"
    server = open_store(QdrantConfig(url="http://127.0.0.1:9"), paths)
    assert isinstance(server, ServerStore)
    server.close()
    assert not tmp_path.joinpath("d").exists()


def test_an_older_edge_shard_gains_the_new_payload_index(tmp_path: Path) -> None:
    import json

    s = EdgeStore(tmp_path, "old")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.close()
    meta_file = tmp_path / "old" / edge.META
    meta = json.loads(meta_file.read_text())
    meta.pop("keyword_indexes")  # what session 1 wrote
    meta_file.write_text(json.dumps(meta))
    s = EdgeStore(tmp_path, "old")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert(
        [Point(str(uuid.uuid4()), {"embedded_text_hash": "sha256:x", "source_type": "code"}, [1.0] * DIM)]
    )
    hits = list(s.scroll(Filter(must=(MatchAny("embedded_text_hash", ("sha256:x",)),))))
    s.close()
    assert len(hits) == 1 and "embedded_text_hash" in json.loads(meta_file.read_text())["keyword_indexes"]


def test_an_older_edge_shard_gains_the_dense_pending_index_on_a_read(tmp_path: Path) -> None:
    """Every search counts the label's chunks waiting for a vector: unindexed, on a shard made
    before two-phase indexing, that count scanned every payload (57 ms at 12,597 chunks)."""
    import json

    s = EdgeStore(tmp_path, "old")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.close()
    meta_file = tmp_path / "old" / edge.META
    meta = json.loads(meta_file.read_text())
    meta.pop("bool_indexes")  # what the sessions before issue 16 wrote
    meta_file.write_text(json.dumps(meta))
    s = EdgeStore(tmp_path, "old")
    assert s.count(Filter(must=(Match("dense_pending", True),))) == 0  # a read, no ensure_collection
    s.close()
    assert json.loads(meta_file.read_text())["bool_indexes"] == ["dense_pending"]


def test_optimize_is_part_of_every_store(store: Store) -> None:
    store.ensure_collection(dim=DIM, embedder_id="e")
    store.upsert([_pt(i, ["acme:main"]) for i in range(1, 4)])
    optimized = store.optimize()  # Edge builds its index when asked; a server does so by itself
    assert optimized is None if isinstance(store, ServerStore) else isinstance(optimized, bool)
    assert store.count(Filter()) == 3  # nothing lost


def test_serialized_store_runs_every_store_method_under_its_lock(store: Store) -> None:
    wrapped = Serialized(store)
    assert {"ensure_collection", "scroll", "query_hybrid", "optimize", "close"} <= set(STORE_METHODS)
    for name in STORE_METHODS:  # each one is the wrapper's, none the adapter's own
        assert getattr(wrapped, name) != getattr(store, name)
    wrapped.ensure_collection(dim=DIM, embedder_id="e")
    wrapped.upsert([_pt(i, ["acme:main"]) for i in range(1, 6)])
    started, done = threading.Event(), threading.Event()

    def count() -> None:
        started.set()
        wrapped.count(Filter())
        done.set()

    with wrapped.lock:  # a crawl's batch in progress: a socket client's call waits for it
        other = threading.Thread(target=count)
        other.start()
        started.wait(5)
        assert not done.wait(0.2)
    other.join(5)
    assert done.is_set()
    assert [r.id for r in wrapped.scroll(Filter(), batch=2)] == [r.id for r in store.scroll(Filter())]


def test_a_point_stored_without_its_dense_vector_gets_one_later(store: Store) -> None:
    """Phase one stores words only; phase two adds the vector in place (issue 16)."""
    from monodex.indexer.store.base import PENDING

    store.ensure_collection(dim=DIM, embedder_id="e")
    words = SparseVector((3, 20), (1.0, 0.5))
    bare = [
        Point(str(uuid.UUID(int=100 + i)), {**_pt(i, ["L"]).payload, PENDING: True}, None, words)
        for i in range(3)
    ]
    store.upsert([_pt(7, ["L"]), *bare])
    flt = Filter(must=(Match(PENDING, True),))
    assert store.count(flt) == 3
    assert {h.id for h in store.search([1.0, 0.0, 0.5, 0.0], Filter(), limit=10)} == {_pt(7, ["L"]).id}
    assert {h.id for h in store.search_sparse(words, Filter(), limit=10)} >= {p.id for p in bare}
    store.delete([bare[2].id])  # GC took one meanwhile: it is skipped, the others are updated
    vectors = [(p.id, [0.0, 1.0, 0.0, 0.0]) for p in bare]  # unit length: cosine stores it as given
    assert store.set_dense(vectors) == 2
    assert store.count(flt) == 0 and store.count(Filter()) == 3
    got = {r.id: r for r in store.retrieve([p.id for p in bare], with_vectors=True)}
    assert got[bare[1].id].dense == [0.0, 1.0, 0.0, 0.0] and got[bare[1].id].payload[PENDING] is False
    assert bare[0].id in {h.id for h in store.search([0.0, 1.0, 0.0, 0.0], Filter(), limit=10)}


def test_edge_counts_kept_between_writes_follow_every_write_and_owner(tmp_path: Path) -> None:
    """Edge keeps a filter's count until the next write (a search counts its label twice): every
    kind of write, and another process owning the shard in between, must show in the next count."""
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    main = Filter(must=(Match("active_label_ids", "acme:main"),))
    s.upsert([_pt(i, ["acme:main"]) for i in range(6)])
    assert s.count(main) == 6 and s.count(main) == 6
    listed = Filter(must=(MatchAny("file_id", ["f1", "f2"]),))  # type: ignore[arg-type]  # a list
    assert s.count(listed) == 2 and s.count(listed) == 2  # unhashable: counted each time, not kept
    s.upsert([_pt(i, ["acme:main"]) for i in range(6, 9)])
    assert s.count(main) == 9
    s.set_payload([str(uuid.UUID(int=1))], {"active_label_ids": ["acme:v2"]})
    assert s.count(main) == 8
    s.delete([str(uuid.UUID(int=2))])
    assert s.count(main) == 7
    s.close()  # another owner writes while this one is closed
    other = EdgeStore(tmp_path, "monodex")
    other.upsert([_pt(i, ["acme:main"]) for i in range(20, 24)])
    other.close()
    assert s.count(main) == 11
    s.close()
