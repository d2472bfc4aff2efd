"""Choosing where to split an oversized line range of a parsed file (reference §2.3-2.5).

Candidates are the end lines of consecutive meaningful children of split scopes, searched from the
shallowest scope down through conduits; the best candidate balances the halves' measured bytes.
Improvement over the original: when no scope has meaningful children to split between, any two
sibling statements, members, pairs or array elements are a better boundary than the middle line.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.syntax.tree import Tree

SPLIT, DEGRADED, FALLBACK = "split", "degraded", "fallback"


@dataclass(frozen=True)
class SizeBudget:
    target: int
    minimum: int  # 20% of target: a half smaller than this makes the split "degraded"
    small: int  # the original's 500 bytes at 6000; penalties start below 2 * small
    scale: float  # node size thresholds (50, 100, 200, 300, 400, 500 bytes at 6000) scale too

    @classmethod
    def of(cls, target: int) -> SizeBudget:
        return cls(target, target // 5, max(1, target * 500 // 6000), target / 6000)


@dataclass
class _Best:
    """The best candidate seen so far by one measure: lowest score, first found on ties."""

    score: float = float("inf")
    line: int = -1
    smaller: int = 0

    def offer(self, score: float, line: int, smaller: int) -> None:
        if score < self.score:
            self.score, self.line, self.smaller = score, line, smaller


@dataclass(frozen=True)
class _Range:
    lines: Lines
    start: int
    end: int
    budget: SizeBudget

    def rate(self, ends: list[int], least_bad: _Best) -> _Best:
        """The most balanced usable candidate (both halves at least the minimum); every candidate
        also competes, with a penalty for small halves, in `least_bad`."""
        total = self.lines.size(self.start, self.end)
        usable = _Best()
        for line in ends:
            first = self.lines.size(self.start, line)
            smaller = min(first, total - first)
            balance = abs(first - total / 2)
            if smaller >= self.budget.minimum:
                usable.offer(balance, line, smaller)
            small = self.budget.small
            penalty = 10000 if smaller < small else 5000 if smaller < 2 * small else 0
            least_bad.offer(balance + penalty, line, smaller)
        return usable


def find_split(tree: Tree, lines: Lines, start: int, end: int, budget: SizeBudget) -> tuple[int, str] | None:
    """(last line of the first half, outcome) or None when the range cannot be split.

    Preference: a usable split between meaningful children (shallowest scope first), then one
    between any siblings, then the least bad of either kind, then the middle line (fallback)."""
    span = _Range(lines, start, end, budget)
    least_bad, weak_usable, weak_least_bad = _Best(), _Best(), _Best()
    for scope, inside in _scopes(tree, start, end):
        if len(inside) < 2:  # one child in the range: no line between two (most of a deep chain)
            continue
        if scope.type in tree.vocab.split_scopes:
            usable = span.rate(_ends(tree, scope, inside, start, end, strong=True), least_bad)
            if usable.line >= 0:
                return usable.line, SPLIT
        if weak_usable.line < 0:
            weak_usable = span.rate(_ends(tree, scope, inside, start, end, strong=False), weak_least_bad)
    for best in (weak_usable, least_bad, weak_least_bad):
        if best.line >= 0:
            return best.line, SPLIT if best.smaller >= budget.minimum else DEGRADED
    return middle_line(lines, start, end)


def _scopes(tree: Tree, start: int, end: int) -> Iterator[tuple[Any, range]]:
    """Scopes overlapping [start, end], shallowest first, reached through conduits, each with its
    children in the range (indexes into tree.kids(scope))."""
    scopes = tree.vocab.scopes
    queue = deque([tree.root])
    while queue:
        node = queue.popleft()
        inside = tree.overlapping(node, start, end)
        if node.type in scopes:
            yield node, inside
        nodes = tree.kids(node).nodes
        queue.extend(n for n in (nodes[i] for i in inside) if n.type in scopes or not _barren(tree, n))


def _barren(tree: Tree, node: Any) -> bool:
    """No scope below `node` through conduits (true of anything but a conduit): the search skips
    it. Remembered, so a table of 60,000 `key: value` pairs is looked into once, not per split."""
    known = tree.barren.get(node.id)
    if known is None:
        vocab = tree.vocab
        known = node.type not in vocab.conduits or all(
            n.type not in vocab.scopes and _barren(tree, n) for n in tree.kids(node).nodes
        )
        tree.barren[node.id] = known
    return known


def _ends(tree: Tree, scope: Any, inside: range, start: int, end: int, *, strong: bool) -> list[int]:
    """Candidate lines: the end line of each but the last of the chosen children, in [start, end)."""
    kids = tree.kids(scope)
    comments = tree.vocab.comments
    chosen = [i for i in inside if (kids.split_points[i] if strong else kids.nodes[i].type not in comments)]
    if len(chosen) < 2:
        return []
    return sorted({kids.ends[i] for i in chosen[:-1] if start <= kids.ends[i] < end})


def middle_line(lines: Lines, start: int, end: int) -> tuple[int, str] | None:
    """The fallback: the line that best halves the bytes, when the range has two lines or more."""
    if end <= start:
        return None
    half = lines.prefix[start] + lines.size(start, end) / 2
    after = bisect_left(lines.prefix, half, start + 1, end + 1)  # prefix[after] >= half
    # The cut ends line `after - 1` or line `after`; take the closer to half, inside [start, end).
    options = [line for line in (after - 2, after - 1) if start <= line < end]
    best = min(options or [start], key=lambda line: abs(lines.prefix[line + 1] - half))
    return best, FALLBACK
