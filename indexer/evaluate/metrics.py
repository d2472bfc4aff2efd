"""How good one ranking is for one question: binary relevance over distinct files, the first ten
places (the figures bench/quality.py has always reported, so a user's and the bench's agree)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Collection, Mapping, Sequence

AT = 10  # places scored: what a search shows by default


def metrics(ranked: Sequence[str], relevant: Collection[str]) -> dict[str, float]:
    """R@1, R@5, R@10 (share of the relevant files found), MRR@10 (1 / the first relevant
    place) and nDCG@10 for `ranked`, distinct files best first. `relevant` is not empty."""
    top = ranked[:AT]
    first = next((i for i, p in enumerate(top, start=1) if p in relevant), None)
    dcg = sum(1 / math.log2(i + 1) for i, p in enumerate(top, start=1) if p in relevant)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(AT, len(relevant)) + 1))
    return {
        "R@1": len(set(ranked[:1]) & set(relevant)) / len(relevant),
        "R@5": len(set(ranked[:5]) & set(relevant)) / len(relevant),
        "R@10": len(set(top) & set(relevant)) / len(relevant),
        "MRR@10": 1 / first if first else 0.0,
        "nDCG@10": dcg / ideal,
    }


def mean(rows: Sequence[dict[str, float]]) -> dict[str, float]:
    """The mean of each figure over `rows` (not empty)."""
    return {k: statistics.fmean(r[k] for r in rows) for k in rows[0]}


def ranks(ranked: Sequence[str], relevant: Collection[str]) -> dict[str, int | None]:
    """Each relevant file's place in the first ten (1-based), None where it is not there."""
    top = list(ranked[:AT])
    return {p: (top.index(p) + 1 if p in top else None) for p in sorted(relevant)}


Spans = Mapping[str, Sequence[Sequence[int]]]  # a relevant file's answer lines: [[first, last], ...]
Listed = tuple[str, int, int]  # a result: its file and the lines it shows


def lines_ndcg(listed: Sequence[Listed], relevant: Collection[str], lines: Spans) -> float:
    """nDCG@10 scored on lines, as a scorer of passages scores it (semble's benchmark): each
    answer span is one target (a relevant file without spans is one, found by its path), found at
    the first result listing its file with lines overlapping it; a result finding several targets
    counts once."""
    targets = [(p, a, b) for p in sorted(relevant) for a, b in (lines.get(p) or [(0, 0)])]
    gains = [0] * AT
    for path, first, last in targets:
        for i, (file, start, end) in enumerate(listed[:AT]):
            if file == path and (not first or not (end < first or start > last)):
                gains[i] = 1
                break
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    return dcg / sum(1 / math.log2(i + 2) for i in range(min(AT, len(targets))))
