"""An evaluation's figures: each system's recall@10, MRR@10 and nDCG@10 per half of the split (and
over all questions), per kind of question, and, when asked, each question's ranks."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

from monodex.indexer.evaluate.metrics import Listed, lines_ndcg, mean, metrics, ranks
from monodex.indexer.evaluate.questions import Built, Question

from monodex.schema.eval import Asked, Figures, Placed, Questions, Scores

# A mode is named better than hybrid for a repository when, on enough questions, it finds more of
# the answers in the first ten and ranks the first no lower. pnpm/pnpm's history (TypeScript
# beside its Rust port) is answered better by words alone: R@10 0.610 against 0.524 (224 titles).
ADVICE_QUESTIONS = 20
ADVICE_MARGIN = 0.03

# The figures reported, as the JSON names them -> as metrics() names them.
FIGURES = {"recall_at_10": "R@10", "mrr_at_10": "MRR@10", "ndcg_at_10": "nDCG@10"}
ONLINES = "nDCG@10 lines"  # scored on the answers' lines (metrics.lines_ndcg), where a question gives them


def halves(split: str) -> tuple[str, ...]:
    """The groups a split reports: both halves and all of them, one half, or all as one."""
    return ("tune", "test", "all") if split == "both" else (split,)


def build(
    chosen: Sequence[Question],
    rows: dict[str, dict[str, list[str]]],
    *,
    systems: Sequence[str],
    split: str,
    per_query: bool,
    listed: Mapping[str, Mapping[str, Sequence[Listed]]] | None = None,
) -> Scores:
    """{"results": {system: {half: figures}}, "by_kind": {kind: {system: figures}}, ...}. With
    `listed` (each mode's results with their lines), the questions that give their answers' lines
    are also scored on them (ONLINES); a baseline ranking whole files is not."""
    scored = {q.id: {name: metrics(rows[q.id][name], q.relevant) for name in systems} for q in chosen}
    for q in chosen:
        for name, hits in (listed or {}).get(q.id, {}).items():
            if q.lines is not None:
                scored[q.id][name][ONLINES] = lines_ndcg(hits, q.relevant, q.lines)
    results = {}
    for name in systems:
        results[name] = {
            half: _figures([scored[q.id][name] for q in chosen if half == "all" or q.split == half])
            for half in halves(split)
        }
    kinds = sorted({q.kind for q in chosen if q.kind})
    by_kind = {
        kind: {name: _figures([scored[q.id][name] for q in chosen if q.kind == kind]) for name in systems}
        for kind in kinds
    }
    answer: Scores = {"results": results, "by_kind": by_kind}
    if per_query:
        answer["per_query"] = [_row(q, rows[q.id], scored[q.id], systems) for q in chosen]
    return answer


def counts(built: Built, chosen: Sequence[Question], *, dropped: int, source: str) -> Questions:
    """How many questions there were, where from, and what was left out and why."""
    return {
        "source": source,
        "total": len(chosen),
        "tune": sum(q.split == "tune" for q in chosen),
        "test": sum(q.split == "test" for q in chosen),
        "kinds": {k: sum(q.kind == k for q in chosen) for k in sorted({q.kind for q in chosen if q.kind})},
        "skipped": dict(sorted(built.skipped.items(), key=lambda kv: (-kv[1], kv[0]))),
        "commits_read": built.walked,
        "relevant_dropped": dropped,
    }


def _figures(rows: list[dict[str, float]]) -> Figures:
    if not rows:
        return {"questions": 0, "recall_at_10": None, "mrr_at_10": None, "ndcg_at_10": None}
    m = mean([{k: v for k, v in r.items() if k != ONLINES} for r in rows])
    figures: Figures = {
        "questions": len(rows),
        "recall_at_10": round(m[FIGURES["recall_at_10"]], 4),
        "mrr_at_10": round(m[FIGURES["mrr_at_10"]], 4),
        "ndcg_at_10": round(m[FIGURES["ndcg_at_10"]], 4),
    }
    on_lines = [r[ONLINES] for r in rows if ONLINES in r]
    if on_lines:
        figures["ndcg_at_10_lines"] = round(statistics.fmean(on_lines), 4)
        figures["questions_with_lines"] = len(on_lines)
    return figures


def _row(
    q: Question, ranked: dict[str, list[str]], scored: dict[str, dict[str, float]], systems: Sequence[str]
) -> Asked:
    return {
        "id": q.id,
        "query": q.query,
        "split": q.split,
        "kind": q.kind,
        "origin": q.origin or None,
        "relevant": list(q.relevant),
        "systems": {name: _placed(ranked[name], q.relevant, scored[name]) for name in systems},
    }


def _placed(ranked: list[str], relevant: Sequence[str], scored: dict[str, float]) -> Placed:
    placed: Placed = {
        "ranks": ranks(ranked, relevant),
        "recall_at_10": round(scored[FIGURES["recall_at_10"]], 4),
        "mrr_at_10": round(scored[FIGURES["mrr_at_10"]], 4),
        "ndcg_at_10": round(scored[FIGURES["ndcg_at_10"]], 4),
    }
    if ONLINES in scored:
        placed["ndcg_at_10_lines"] = round(scored[ONLINES], 4)
    return placed


# The keyword list's weight that leans a hybrid search towards a mode (the model's list weighs 1).
_LEANS = {"lexical": 2, "dense": 0.5}


def advice(results: dict[str, dict[str, Figures]], split: str, catalog: str) -> list[str]:
    """A note when another mode ranks these questions clearly better than hybrid, judged on the
    tune half when both halves were asked for (the test half stays for checking a choice), with
    the catalog's tuning that leans hybrid that way (config.json `catalogs.*.search`)."""
    half = "tune" if split == "both" else split
    hybrid = results.get("hybrid", {}).get(half)
    if hybrid is None or (hybrid["questions"] or 0) < ADVICE_QUESTIONS:
        return []
    notes = []
    for mode in ("lexical", "dense"):
        other = results.get(mode, {}).get(half)
        if other is None:
            continue
        r, m = other["recall_at_10"], other["mrr_at_10"]
        hr, hm = hybrid["recall_at_10"], hybrid["mrr_at_10"]
        if r is None or m is None or hr is None or hm is None or r < hr + ADVICE_MARGIN or m < hm:
            continue
        notes.append(
            f"{mode} ranks these {hybrid['questions']} questions better than hybrid ({half}: R@10 {r:.3f} "
            f"against {hr:.3f}, MRR@10 {m:.3f} against {hm:.3f}): in this repository "
            f"'monodex search --mode {mode}' may answer better, or hybrid with "
            f"catalogs.{catalog}.search.lexical_weight {_LEANS[mode]} in config.json (compare with "
            "'monodex eval --against'); check the other half before you choose"
        )
    return notes
