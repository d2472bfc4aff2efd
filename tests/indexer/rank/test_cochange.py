"""The history signal (indexer/read/cochange.py) on hand-made hits: a lower hit that changed
with the top ones rises, says why, and nothing else moves."""

from __future__ import annotations

from monodex.indexer.history.cochanges import Counts
from monodex.indexer.rank import cochange, ranking
from monodex.indexer.rank.candidates import Candidate
from monodex.indexer.store.base import Scored

PATHS = [f"src/f{i}.ts" for i in range(1, 10)]  # f1 best ... f9 worst


def _kept(paths: list[str]) -> list[ranking.Kept]:
    cands = []
    for i, path in enumerate(paths):
        score = 1.0 - 0.05 * i
        hit = Scored(
            id=path, score=score, payload={"relative_path": path, "file_id": path, "chunk_ordinal": 1}
        )
        cands.append(Candidate(hit, score, None, None))
    return ranking.rank(cands, limit=len(paths), per_file=1, include_tests=False)


def _history(*commits: list[str]) -> Counts:
    counts = Counts()
    for files in commits:
        counts.add(sorted(files))
    return counts


def test_a_lower_hit_that_changed_with_the_top_ones_rises() -> None:
    past = _history(*[["src/f1.ts", "src/f9.ts"]] * 4, ["src/f1.ts"])
    kept = cochange.reorder(_kept(PATHS), past, weight=1.0)
    order = [k.candidate.path for k in kept]
    assert order[: cochange.KEEP] == PATHS[: cochange.KEEP]  # the query's own top stays
    assert order[cochange.KEEP] == "src/f9.ts"
    moved = kept[cochange.KEEP].candidate.moved
    assert moved[0]["signal"] == "history" and "src/f1.ts in 4 of its 5 commits" in moved[0]["why"]
    # scores still read best first
    scores = [k.candidate.score for k in kept]
    assert scores == sorted(scores, reverse=True)


def test_without_history_or_shared_commits_nothing_moves() -> None:
    assert [k.candidate.path for k in cochange.reorder(_kept(PATHS), None, 1.0)] == PATHS
    unrelated = _history(["src/f7.ts", "src/f8.ts"], ["src/f9.ts"])  # no change with the top three
    assert [k.candidate.path for k in cochange.reorder(_kept(PATHS), unrelated, 1.0)] == PATHS
    strong = _history(*[["src/f1.ts", "src/f9.ts"]] * 4)
    assert [k.candidate.path for k in cochange.reorder(_kept(PATHS), strong, 0.0)] == PATHS


def test_tests_keep_their_place_and_never_rise_by_history() -> None:
    paths = [*PATHS[:6], "src/f1.test.ts", *PATHS[6:]]
    past = _history(*[["src/f1.test.ts", "src/f1.ts"]] * 5, *[["src/f1.ts", "src/f9.ts"]] * 2)
    before = [k.candidate.path for k in _kept(paths)]
    after = [k.candidate.path for k in cochange.reorder(_kept(paths), past, 1.0)]
    assert after.index("src/f1.test.ts") == before.index("src/f1.test.ts")
    assert after.index("src/f9.ts") < before.index("src/f9.ts")


def test_lifted_hits_read_their_evidence_not_one_capped_score() -> None:
    """vuejs/core (issue 22): four hits lifted over the fifth place all read its score (0.070)."""
    paths = [f"src/f{i}.ts" for i in range(1, 13)]
    past = _history(
        *[["src/f1.ts", "src/f12.ts"]] * 9,  # strong: 9 commits together
        *[["src/f1.ts", "src/f11.ts"]] * 6,
        *[["src/f1.ts", "src/f10.ts"]] * 3,
        *[["src/f1.ts", "src/f9.ts"]] * 2,
        ["src/f1.ts"],
    )
    kept = cochange.reorder(_kept(paths), past, weight=1.0)
    lifted = [k for k in kept if k.candidate.moved]
    assert [k.candidate.path for k in lifted][:2] == ["src/f12.ts", "src/f11.ts"] and len(lifted) == 4
    scores = [k.candidate.score for k in lifted]
    assert len(set(scores)) == len(scores) and scores == sorted(scores, reverse=True)  # no ties
    assert scores[0] < kept[cochange.KEEP - 1].candidate.score  # still under the places it keeps
    every = [k.candidate.score for k in kept]
    assert every == sorted(every, reverse=True)


def test_pages_and_licences_rise_only_by_pages_code_only_by_code() -> None:
    """Release and licence commits touch code and prose at once: those counts lift nothing across
    kinds (vuejs/core, issue 22: a news page and a licence paragraph lifted by code anchors)."""
    paths = [*PATHS[:7], "docs/news.md", "LICENSE", "src/f8.ts"]
    past = _history(*[["src/f1.ts", "docs/news.md", "LICENSE", "src/f8.ts"]] * 6, ["src/f1.ts"])
    kept = cochange.reorder(_kept(paths), past, weight=1.0)
    order = [k.candidate.path for k in kept]
    assert order.index("src/f8.ts") == cochange.KEEP  # code lifted by code
    assert not [k for k in kept if k.candidate.path in ("docs/news.md", "LICENSE") and k.candidate.moved]
    assert order.index("src/f7.ts") < order.index("docs/news.md") < order.index("LICENSE")  # not by code
    pages = ["docs/guide.md", *PATHS[1:7], "src/f9.ts", "docs/news.md"]
    past = _history(*[["docs/guide.md", "docs/news.md", "src/f9.ts"]] * 6)
    order = [k.candidate.path for k in cochange.reorder(_kept(pages), past, weight=1.0)]
    assert order.index("docs/news.md") == cochange.KEEP  # a page lifted by a page
    assert order.index("src/f9.ts") > order.index("docs/news.md")
