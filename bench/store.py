"""The Edge store on synthetic data: 10,000 chunks × 384 dims (random unit vectors, realistic
payloads) over 3 labels of one catalog plus a second catalog.

Measures upsert throughput (batches of 256), filtered top-10 latency (source_type + catalog +
active_label_ids) over 200 queries, a hybrid (dense + sparse, RRF) query, close + reopen + first
query, one set_payload over 1,000 ids (a label joining 1,000 unchanged chunks), and the same
filtered query again after EdgeStore.optimize() (HNSW build).

Usage: .venv/bin/python bench/store.py [points]      (< 1 minute on 2 cores)
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import table  # noqa: E402
from monodex.indexer.store.base import Filter, Match, Point, SparseVector  # noqa: E402
from monodex.indexer.store.edge import EdgeStore  # noqa: E402

DIM = 384
BATCH = 256
QUERIES = 200
LABELS = ["acme:main", "acme:release/1.0", "acme:feature/x"]


def _payload(i: int, rng: np.random.Generator) -> dict[str, Any]:
    catalog = "acme" if i % 10 else "other"
    labels = [label for j, label in enumerate(LABELS) if (i >> j) & 1 or j == 0]
    if catalog == "other":
        labels = ["other:main"]
    package = f"@acme/pkg-{i % 40}"
    path = f"libraries/pkg-{i % 40}/src/file{i % 700}.ts"
    return {
        "text": "export function f() {\n  return 1;\n}\n" * int(rng.integers(5, 40)),
        "source_type": "code",
        "catalog": catalog,
        "label_id": labels[0],
        "active_label_ids": labels,
        "embedder_id": "minilm-l6-v2-int8:v1",
        "chunker_id": "typescript-partitioner:v1",
        "blob_id": f"{i:040x}",
        "content_hash": f"{i:064x}",
        "file_id": f"{i // 3:016x}",
        "relative_path": path,
        "package_name": package,
        "source_uri": f"git://{catalog}/{path}",
        "chunk_ordinal": i % 3 + 1,
        "chunk_count": 3,
        "start_line": 1,
        "end_line": 40,
        "symbol_name": f"f{i}",
        "chunk_type": "function",
        "chunk_kind": "content",
        "breadcrumb": f"{package}:file{i % 700}.ts:f{i}",
        "file_complete": i % 3 == 0,
    }


def _points(n: int, rng: np.random.Generator) -> list[Point]:
    vecs = rng.standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    out = []
    for i in range(n):
        terms = rng.choice(30_000, size=12, replace=False)
        sparse = SparseVector(tuple(int(t) for t in terms), tuple(1.0 for _ in terms))
        out.append(Point(str(uuid.UUID(int=i + 1)), _payload(i, rng), vecs[i].tolist(), sparse))
    return out


def _latencies(fn: Callable[[int], object]) -> list[float]:
    out = []
    for q in range(QUERIES):
        t0 = time.perf_counter()
        fn(q)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _pct(ms: list[float]) -> str:
    p95 = statistics.quantiles(ms, n=20)[-1]
    return f"p50 {statistics.median(ms):.2f} ms, p95 {p95:.2f} ms"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rng = np.random.default_rng(7)
    points = _points(n, rng)
    queries = rng.standard_normal((QUERIES, DIM)).astype(np.float32).tolist()
    flt = Filter(
        must=(Match("source_type", "code"), Match("catalog", "acme"), Match("active_label_ids", LABELS[1]))
    )
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="monodex-bench-store-") as tmp:
        store = EdgeStore(Path(tmp), "monodex")
        t0 = time.perf_counter()
        store.ensure_collection(dim=DIM, embedder_id="minilm-l6-v2-int8:v1")
        rows.append(["create collection + 10 payload indexes", f"{time.perf_counter() - t0:.2f} s"])

        t0 = time.perf_counter()
        for start in range(0, n, BATCH):
            store.upsert(points[start : start + BATCH])
        took = time.perf_counter() - t0
        rows.append([f"upsert {n:,} points (batches of {BATCH})", f"{took:.2f} s = {n / took:,.0f} points/s"])
        matching = store.count(flt)

        ms = _latencies(lambda q: store.search(queries[q], flt, limit=10))
        rows.append([f"filtered top-10 dense ({matching:,} match), {QUERIES} queries", _pct(ms)])
        ms = _latencies(lambda q: store.search(queries[q], Filter(must=flt.must[:1]), limit=10))
        rows.append(["top-10 dense, source_type only", _pct(ms)])
        sparse = points[5].sparse
        assert sparse is not None
        ms = _latencies(lambda q: store.query_hybrid(queries[q], sparse, flt, limit=10, prefetch_limit=50))
        rows.append(["filtered hybrid (dense + sparse prefetch 50, RRF)", _pct(ms)])

        ids = [p.id for p in points[:1000]]
        t0 = time.perf_counter()
        store.set_payload(ids, {"active_label_ids": [*LABELS, "acme:new"]})
        rows.append(["set_payload on 1,000 ids", f"{(time.perf_counter() - t0) * 1000:.0f} ms"])
        t0 = time.perf_counter()
        slim = sum(1 for _ in store.scroll(flt, payload_keys=["file_id", "active_label_ids"]))
        rows.append([f"scroll {slim:,} filtered points, 2 payload keys", f"{time.perf_counter() - t0:.2f} s"])

        t0 = time.perf_counter()
        store.optimize()
        rows.append(["optimize (HNSW, segment merge)", f"{time.perf_counter() - t0:.2f} s"])
        ms = _latencies(lambda q: store.search(queries[q], flt, limit=10))
        rows.append(["filtered top-10 dense, after optimize", _pct(ms)])

        t0 = time.perf_counter()
        store.close()
        rows.append(["close (flush)", f"{time.perf_counter() - t0:.2f} s"])
        t0 = time.perf_counter()
        store = EdgeStore(Path(tmp), "monodex")
        hits = store.search(queries[0], flt, limit=10)
        rows.append(["reopen + first filtered query", f"{(time.perf_counter() - t0) * 1000:.0f} ms"])
        assert len(hits) == 10 and store.count(Filter()) == n
        store.close()
    print(table(rows, ["Edge store", f"{n:,} points × {DIM} dims"]))


if __name__ == "__main__":
    main()
