"""compare/diff.py and the membership filters it stands on, on a real Qdrant Edge store: a diff reads
the files that differ, compares symbols by text, and ranks only the chunks a change touched."""

from __future__ import annotations

from typing import Any

import pytest
from monodex.indexer.compare import diff
from monodex.indexer.points import filters
from monodex.indexer.points.identity import chunk_point_id
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.points.membership import Held
from monodex.indexer.store.base import Match, Point
from monodex.indexer.store.edge import EdgeStore

from monodex.schema.payload import Key

DIM = 4


def _chunk(fid: str, ordinal: int, crumb: str, text: str, labels: list[str], path: str) -> Point:
    payload: dict[str, Any] = {
        "source_type": "code",
        "file_id": fid,
        "chunk_ordinal": ordinal,
        "relative_path": path,
        "path_prefixes": ["/".join(path.split("/")[: i + 1]) for i in range(path.count("/") + 1)],
        "package_name": "@acme/net" if path.startswith("net/") else None,
        "breadcrumb": crumb,
        "symbol_name": crumb.rsplit(":", 1)[-1],
        "content_hash": text,
        "start_line": ordinal * 10 - 9,
        "end_line": ordinal * 10,
        Key.ACTIVE_LABEL_IDS: labels,
    }
    return Point(id=chunk_point_id(fid, ordinal), payload=payload, dense=[1.0, 0.0, 0.0, 0.0])


def _state(label: str) -> LabelState:
    return LabelState("acme", label, f"acme:{label}", "c0ffee", "git-commit", True, 0, {})


@pytest.fixture
def store(tmp_path):  # type: ignore[no-untyped-def]
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    a, b, both = ["acme:a"], ["acme:b"], ["acme:a", "acme:b"]
    s.upsert(
        [
            # shared by both labels: never part of the answer
            *(_chunk(f"{i:016x}", 1, f"s{i}", f"same{i}", both, f"shared/f{i}.ts") for i in range(50)),
            # net/retry.ts: two versions; chunk 1 kept its text, chunk 2 changed, chunk 3 is new
            _chunk("a" * 16, 1, "retry.ts:header", "h", a, "net/retry.ts"),
            _chunk("a" * 16, 2, "retry.ts:fetchWithRetry", "old body", a, "net/retry.ts"),
            _chunk("b" * 16, 1, "retry.ts:header", "h", b, "net/retry.ts"),
            _chunk("b" * 16, 2, "retry.ts:fetchWithRetry", "new body", b, "net/retry.ts"),
            _chunk("b" * 16, 3, "retry.ts:jitter", "jitter", b, "net/retry.ts"),
            _chunk("c" * 16, 1, "colors.ts:colorize", "colors", a, "term/colors.ts"),  # removed
            _chunk("d" * 16, 1, "backoff.ts:next", "backoff", b, "net/backoff.ts"),  # added
        ]
    )
    yield s
    s.close()


def test_only_in_reads_the_versions_one_label_has_and_the_other_not(store) -> None:  # type: ignore[no-untyped-def]
    assert set(diff.only_in(store, "acme:a", "acme:b")) == {"net/retry.ts", "term/colors.ts"}
    assert set(diff.only_in(store, "acme:b", "acme:a")) == {"net/retry.ts", "net/backoff.ts"}
    assert set(diff.only_in(store, "acme:b", "acme:a", paths=("net/backoff.ts",))) == {"net/backoff.ts"}
    # the filter underneath: held by one, not by the other
    a, b = Held("acme:a", "acme:a"), Held("acme:b", "acme:b")  # labels from before issue 25: their own keys
    assert store.count(filters.labels_chunks((a,), without=(b,))) == 3
    assert store.count(filters.labels_chunks((a, b), Match("chunk_ordinal", 1))) == 54


def test_files_compares_symbols_by_their_text(store) -> None:  # type: ignore[no-untyped-def]
    changes = {c.path: c for c in diff.files(store, _state("a"), _state("b"))}
    assert {p: c.change for p, c in changes.items()} == {
        "net/backoff.ts": "added",
        "net/retry.ts": "changed",
        "term/colors.ts": "removed",
    }
    retry = changes["net/retry.ts"]
    assert [(s["breadcrumb"], s["change"]) for s in retry.symbols] == [
        ("retry.ts:fetchWithRetry", "changed"),
        ("retry.ts:jitter", "added"),
    ]  # the header kept its text: not listed
    assert (retry.chunks_added, retry.chunks_removed) == (2, 1)
    assert retry.touched == {("b" * 16, 2), ("b" * 16, 3), ("a" * 16, 2)}
    assert diff.packages(list(changes.values())) == [
        {"package": "@acme/net", "added": 1, "removed": 0, "changed": 1},
        {"package": None, "added": 0, "removed": 1, "changed": 0},
    ]
    assert diff.summary(list(changes.values()))["chunks_added"] == 3


def test_rank_counts_only_hits_on_touched_chunks(store) -> None:  # type: ignore[no-untyped-def]
    changes = diff.files(store, _state("a"), _state("b"))
    hits = [
        {"file_id": "b" * 16, "chunk_ordinal": 1, "breadcrumb": "retry.ts:header", "score": 0.9},  # untouched
        {"file_id": "c" * 16, "chunk_ordinal": 1, "breadcrumb": "colors.ts:colorize", "score": 0.5},
        {"file_id": "a" * 16, "chunk_ordinal": 2, "breadcrumb": "retry.ts:fetchWithRetry", "score": 0.3},
        {"file_id": "e" * 16, "chunk_ordinal": 1, "breadcrumb": "x", "score": 1.0},  # not in the diff
    ]
    ranked = diff.rank(changes, hits)
    assert [(c.path, score) for c, score in ranked] == [("term/colors.ts", 0.5), ("net/retry.ts", 0.3)]
    retry = next(c for c in changes if c.path == "net/retry.ts")
    assert [s.get("score") for s in retry.symbols] == [0.3, None]
