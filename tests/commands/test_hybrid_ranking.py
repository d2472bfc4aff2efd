"""Hybrid retrieval (dense + code-aware lexical, fused by Qdrant), ranking that puts source before
tests and changelogs, distinct files, --explain, and labels indexed before lexical vectors."""

from __future__ import annotations

import json

import pytest
from monodex.indexer.points import labelmeta
from monodex.indexer.rank import ranking
from monodex.indexer.session import Session

from monodex.disk import paths
from monodex.settings import config

SOURCE = """/** Computes the shortest path between two nodes of a weighted graph (Dijkstra). */
export function shortestPathDijkstra(graph: WeightedGraph, start: string, goal: string): string[] {
  const distances: Map<string, number> = new Map();
  distances.set(start, 0);
  return reconstructRoute(graph, distances, goal);
}

/** Walks the predecessor links back from the goal. */
export function reconstructRoute(graph: WeightedGraph, distances: Map<string, number>, goal: string): string[] {
  return [goal];
}
"""

TEST = """import { shortestPathDijkstra } from '../shortestPath';

describe('shortestPathDijkstra', () => {
  it('computes the shortest path between two nodes of a weighted graph', () => {
    expect(shortestPathDijkstra(graph, 'a', 'b')).toEqual(['a', 'b']);
  });
});
"""

FILES = {
    "package.json": json.dumps({"name": "root"}),
    "libs/graph/package.json": json.dumps({"name": "@acme/graph"}),
    "libs/graph/src/shortestPath.ts": SOURCE,
    "libs/graph/src/test/shortestPath.test.ts": TEST,
    "libs/graph/CHANGELOG.md": "# Change Log\n\n## 1.2.0\n\n- Add shortestPathDijkstra to compute the shortest path.\n",
    "libs/graph/src/heap.ts": "/** A binary min-heap keyed by priority. */\nexport class MinHeap {\n  public push(item: number): void {}\n}\n",
}
SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json")


@pytest.fixture
def crawled(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files(FILES)


def _paths(found: dict) -> list[str]:  # type: ignore[type-arg]
    return [r["relative_path"] for r in found["results"]]


def test_every_mode_answers_and_lexical_matches_an_exact_name(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    for mode in ("hybrid", "dense", "lexical"):
        code, found, err = run_json(*SEARCH, "--text", "MinHeap", "--mode", mode)
        assert code == 0, err
        assert found["mode"] == mode
        assert _paths(found)[0] == "libs/graph/src/heap.ts", mode
    found = run_json(*SEARCH, "--text", "reconstructRoute", "--mode", "lexical")[1]
    assert _paths(found) == ["libs/graph/src/shortestPath.ts"]  # only that file has the name


def test_source_ranks_above_its_test_and_changelog_unless_asked(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    query = ("--text", "compute the shortest path between two nodes of a weighted graph", "--explain")
    found = run_json(*SEARCH, *query)[1]
    assert _paths(found)[0] == "libs/graph/src/shortestPath.ts"
    roles = {r["relative_path"]: r["explain"]["role"] for r in found["results"]}
    assert roles["libs/graph/src/test/shortestPath.test.ts"] == "test"
    assert roles["libs/graph/CHANGELOG.md"] == "changelog"
    for r in found["results"]:
        e = r["explain"]
        assert e["demoted"] == (e["role"] != "source")
        assert e["dense_rank"] is not None and e["fused_score"] > 0
    plain = run_json(*SEARCH, *query, "--include-tests")[1]
    assert all(not r["explain"]["demoted"] for r in plain["results"])
    assert [r["explain"]["rank_after_signals"] for r in plain["results"]] == sorted(
        r["explain"]["rank_after_signals"] for r in plain["results"]
    )  # without demotion the order is the fused order as the ranking signals moved it (issue 14)


def test_results_are_distinct_files_unless_per_file_says_otherwise(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    crawled.write(
        "libs/graph/src/big.ts",
        "".join(f"export function route{i}(): number {{ return {i}; }}\n" * 30 for i in range(8)),
    )
    crawled.commit("big file")
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    found = run_json(*SEARCH, "--text", "route function", "--limit", "10")[1]
    assert len(_paths(found)) == len(set(_paths(found)))
    many = run_json(*SEARCH, "--text", "route function", "--limit", "10", "--per-file", "3")[1]
    assert max(_paths(many).count(p) for p in set(_paths(many))) == 3


def test_roles_from_path_conventions() -> None:
    cases = {
        "libraries/rush-lib/src/api/RushConfiguration.ts": "source",
        "libraries/rush-lib/src/api/test/RushConfiguration.test.ts": "test",
        "libraries/x/src/__tests__/a.ts": "test",
        "libraries/x/src/a.spec.tsx": "test",
        "libraries/x/src/test/__snapshots__/a.test.ts.snap": "snapshot",
        "common/reviews/api/rush-lib.api.md": "api-report",
        "common/changes/@microsoft/rush/fix_2024-01-01.json": "change-file",
        "libraries/x/CHANGELOG.md": "changelog",
        "libraries/x/CHANGELOG.json": "changelog",
        "libraries/x/src/testing.ts": "source",
        "build-tests/sparo-real-repo-test/etc/list-profiles.txt": "test",
        "libraries/x/README.md": "source",
    }
    assert {p: ranking.role_of(p) for p in cases} == cases


def test_a_label_indexed_before_lexical_vectors_gets_a_way_forward(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    with Session(config.load(p), p) as s:  # what a label written by the previous format holds
        state = labelmeta.read(s.store, "acme:main")
        assert state is not None
        labelmeta.write(
            s.store,
            catalog="acme",
            label="main",
            dim=384,
            commit_oid=state.commit_oid,
            source_kind=state.source_kind,
            complete=True,
            now=state.updated_at_unix_secs,
            extra={k: v for k, v in state.extra.items() if k != "point_format"},
        )
    code, found, err = run_json(*SEARCH, "--text", "binary heap")
    assert code == 0, err
    assert found["mode"] == "dense" and "--full" in found["notes"][0]
    assert _paths(found)[0] == "libs/graph/src/heap.ts"
    code, _, err = run_json(*SEARCH, "--text", "binary heap", "--mode", "lexical")
    assert code == 2 and "older monodex" in err and "--full" in err
    code, summary, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--full", "--json"
    )
    assert code == 0 and summary["chunks_embedded"] == 0  # the same texts: every vector is copied
    assert run_json(*SEARCH, "--text", "binary heap")[1]["mode"] == "hybrid"


def test_a_change_requests_lexical_list_weighs_more_than_a_questions(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    """A change request says the commit's words, which are the code's: its lexical ranks count
    CHANGE_LEXICAL times in the fusion; a question's count once (bench/histories.py)."""
    from monodex.indexer.read.search import CHANGE_LEXICAL, RRF_K

    def weights(text: str) -> set[float]:
        found = run_json(*SEARCH, "--text", text, "--explain", "--include-tests")[1]
        out = set()
        for r in found["results"]:
            e = r["explain"]
            if e["dense_rank"] is not None and e["lexical_rank"] is not None:
                lexical = e["fused_score"] - 1 / (RRF_K + e["dense_rank"] - 1)
                out.add(round(lexical * (RRF_K + e["lexical_rank"] - 1), 3))
        return out

    assert weights("fix: shortest path between two nodes of a weighted graph") == {CHANGE_LEXICAL}
    assert weights("where is the shortest path between two nodes of a weighted graph computed?") == {1.0}
    assert CHANGE_LEXICAL > 1.0
