"""Okapi BM25, the plain baseline a ranking must beat: word tokens (letters, digits, underscore,
lower-cased), k1 1.2, b 0.75, no stemming, no stop words, no re-ordering."""

from __future__ import annotations

import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence

K1 = 1.2
B = 0.75
WORD = re.compile(r"[A-Za-z0-9_]+")


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


class BM25:
    """An index of `texts` (documents, by position); `search` ranks their positions."""

    def __init__(self, texts: Sequence[str]) -> None:
        self.tf = [Counter(words(t)) for t in texts]
        self.len = [sum(t.values()) for t in self.tf]
        self.avg = statistics.fmean(self.len) if self.len else 1.0
        df: Counter[str] = Counter()
        for t in self.tf:
            df.update(t.keys())
        n = len(texts)
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.postings: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(self.tf):
            for w in t:
                self.postings[w].append(i)

    def search(self, query: str, n: int = 100) -> list[tuple[int, float]]:
        """(document position, score) of the `n` best, best first; ties in document order. The
        query's words are summed in their order, so a run gives the same floats every time."""
        scores: dict[int, float] = defaultdict(float)
        for w in dict.fromkeys(words(query)):
            for i in self.postings.get(w, ()):
                tf = self.tf[i][w]
                norm = tf + K1 * (1 - B + B * self.len[i] / self.avg)
                scores[i] += self.idf[w] * tf * (K1 + 1) / norm
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
