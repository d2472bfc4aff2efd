"""Past words: the files earlier commits with the query's words in their subject touched (issue 34).

A repository's history says which files a change described in these words touches: "pnpm
catalogs" commits changed the shrinkwrap code, "ci:" commits the workflows, "session" commits
flask's sessions.py. The subjects of the commits a file took part in are a document about it,
written by the people who changed it, in the words people ask with; their words reach files
whose code spells them differently or not at all. Each file's document is scored against the
query as BM25 scores a chunk (counts per commit, b = B: a file changed in many commits is only
gently discounted: it is often the file every question is about), and the best few files form a
third ranked list beside the dense and the lexical ones (read/joined.py fuses it).

Only 32-bit hashes of the words are stored (history/cochanges.py), counted for the commits the
co-change signal counts (the same bulk-change cut-off). Measured on the tune halves, kept when
the test halves agreed (docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from monodex.indexer.points import lexical

K1 = 1.2
B = 0.3  # b 0.75 ranked tune answers lower (R@10 of the list alone 0.39 against 0.51 on rushstack)
FILES = 10  # files of the list fused: as many as a page of results


@runtime_checkable
class PastWords(Protocol):
    def frequencies(self, terms: Sequence[int]) -> dict[int, int]: ...

    def totals(self) -> tuple[int, int]: ...

    def best(
        self, weights: dict[int, float], lean: float, slope: float, limit: int
    ) -> list[tuple[str, float, int]]: ...


@dataclass(frozen=True)
class Past:
    """A file of the list: its BM25 score and the most commits one query word shares with it."""

    path: str
    score: float
    commits: int


def ranked(history: object, text: str, limit: int = FILES) -> list[Past]:
    """The files whose commits' subjects best match `text`, best first; [] without a history
    (or one counted before the words)."""
    if not isinstance(history, PastWords):
        return []
    terms = lexical.query_indices(text)
    df = history.frequencies(terms) if terms else {}
    files, commits = history.totals() if df else (0, 0)
    if files == 0:
        return []
    # BM25 over the files' subjects: idf x n (K1 + 1) / (n + K1 (1 - B + B x commits / mean))
    weights = {t: (K1 + 1) * math.log(1 + (files - d + 0.5) / (d + 0.5)) for t, d in df.items()}
    best = history.best(weights, K1 * (1 - B), K1 * B * files / commits, limit)
    return [Past(path, score, most) for path, score, most in best]
