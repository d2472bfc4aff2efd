"""What a ranking scores (indexer/evaluate/metrics.py) and the plain BM25 it is held against."""

from __future__ import annotations

import math

import pytest
from monodex.indexer.evaluate.bm25 import BM25, words
from monodex.indexer.evaluate.metrics import lines_ndcg, mean, metrics, ranks
from monodex.indexer.evaluate.report import advice


def test_metrics_count_distinct_files_in_the_first_ten() -> None:
    m = metrics(["a", "x", "b", *[f"n{i}" for i in range(7)], "c"], {"a", "b", "c"})
    assert m["R@1"] == pytest.approx(1 / 3) and m["R@5"] == pytest.approx(2 / 3)
    assert m["R@10"] == pytest.approx(2 / 3)  # c is eleventh
    assert m["MRR@10"] == 1.0
    ideal = 1 + 1 / math.log2(3) + 1 / math.log2(4)
    assert m["nDCG@10"] == pytest.approx((1 + 1 / math.log2(4)) / ideal)
    assert metrics(["x", "a"], {"a"})["MRR@10"] == 0.5 and metrics([], {"a"})["R@10"] == 0.0
    assert mean([{"R@10": 1.0}, {"R@10": 0.0}]) == {"R@10": 0.5}
    assert ranks(["x", "a"], {"b", "a"}) == {"a": 2, "b": None}


def test_bm25_ranks_the_rare_word_first_and_ties_by_position() -> None:
    docs = ["the retry loop", "the the the config", "retry backoff retry backoff", "unrelated words"]
    index = BM25(docs)
    assert [i for i, _ in index.search("backoff")] == [2]
    assert [i for i, _ in index.search("retry the")][0] == 0  # the one with both words
    tied = BM25(["same words", "same words", "other"])
    assert [i for i, _ in tied.search("words same")] == [0, 1]
    assert index.search("nothing matches") == []
    assert words("fetchWithRetry(url_path, 3)") == ["fetchwithretry", "url_path", "3"]


def _fig(n: int, r: float, m: float) -> dict[str, float | int | None]:
    return {"questions": n, "recall_at_10": r, "mrr_at_10": m, "ndcg_at_10": None}


def test_eval_names_a_mode_that_ranks_the_repositorys_history_clearly_better_than_hybrid() -> None:
    """pnpm/pnpm's 224 titles: lexical R@10 0.610 / MRR 0.448 against hybrid 0.524 / 0.368."""
    results = {
        "hybrid": {"tune": _fig(112, 0.524, 0.368), "test": _fig(112, 0.70, 0.6)},
        "lexical": {"tune": _fig(112, 0.610, 0.448), "test": _fig(112, 0.60, 0.5)},
        "dense": {"tune": _fig(112, 0.358, 0.261), "test": _fig(112, 0.40, 0.3)},
    }
    (note,) = advice(results, "both", "pnpm")  # judged on the tune half: the test half checks a choice
    assert note.startswith("lexical ranks these 112 questions better than hybrid (tune: R@10 0.610")
    assert "--mode lexical" in note
    # or hybrid leaning that way, through the catalog's tuning, compared run against run
    assert "hybrid with catalogs.pnpm.search.lexical_weight 2 in config.json" in note
    assert "'monodex eval --against'" in note
    dense_better = {**results, "dense": {"tune": _fig(112, 0.610, 0.448)}, "lexical": {}}
    (note,) = advice(dense_better, "both", "pnpm")
    assert "--mode dense" in note and "lexical_weight 0.5" in note
    assert advice(results, "test", "pnpm") == []  # on the test half hybrid leads
    few = {k: {"tune": {**v["tune"], "questions": 12}} for k, v in results.items()}
    assert advice(few, "tune", "pnpm") == []  # too few questions to say
    close = {**results, "lexical": {"tune": _fig(112, 0.540, 0.448)}}
    assert advice(close, "both", "pnpm") == []  # within the margin
    lower_first = {**results, "lexical": {"tune": _fig(112, 0.610, 0.300)}}
    assert advice(lower_first, "both", "pnpm") == []  # more found, but the first answer placed lower
    assert advice({"lexical": results["lexical"]}, "both", "pnpm") == []  # hybrid not measured


def test_lines_are_scored_as_a_scorer_of_passages_scores_them() -> None:
    lines = {"a.rs": [[10, 20], [200, 210]], "b.rs": [[5, 9]]}
    relevant = {"a.rs", "b.rs", "c.rs"}  # c.rs gives no lines: its path finds it
    # a.rs listed by lines beside both its spans: only b.rs and c.rs are found
    missed = lines_ndcg([("a.rs", 30, 40), ("b.rs", 1, 5), ("c.rs", 1, 2)], relevant, lines)
    # a.rs's first listing overlaps its first span: one target of its two
    one = lines_ndcg([("a.rs", 15, 25), ("b.rs", 8, 30), ("c.rs", 1, 2)], relevant, lines)
    both = lines_ndcg(
        [("a.rs", 15, 25), ("a.rs", 205, 206), ("b.rs", 8, 30), ("c.rs", 1, 2)], relevant, lines
    )
    assert 0 < missed < one < both == pytest.approx(1.0)
    # a result finding two targets counts once
    wide = lines_ndcg([("a.rs", 1, 300)], {"a.rs"}, {"a.rs": [[10, 20], [200, 210]]})
    assert wide == pytest.approx(1 / (1 + 1 / math.log2(3)))
