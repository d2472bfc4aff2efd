"""Choosing where to split an oversized line range of a TypeScript file (pure over the AST).

Candidates are the end lines of consecutive meaningful children of split scopes, found from the
shallowest scope down through conduits; the best split balances the two halves' measured bytes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.chunkers.tsnodes import CONDUITS, SPLIT_SCOPES, end_row, meaningful


@dataclass(frozen=True)
class Budget:
    target: int
    minimum: int  # 20% of target: a half smaller than this makes the split "degraded"
    small: int  # the original's 500 bytes at 6000
    scale: float  # size thresholds scale with the budget

    @classmethod
    def of(cls, target: int) -> Budget:
        return cls(target, target // 5, max(1, target * 500 // 6000), target / 6000)


def _overlaps(node: Any, start: int, end: int) -> bool:
    return bool(node.start_point[0] <= end and end_row(node) >= start)


def scopes(root: Any, start: int, end: int) -> Iterator[Any]:
    """Split scopes overlapping [start, end], shallowest first, reached through conduits."""
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if node.type in SPLIT_SCOPES:
            yield node
        for child in node.named_children:
            if (child.type in SPLIT_SCOPES or child.type in CONDUITS) and _overlaps(child, start, end):
                queue.append(child)


def find_split(root: Any, lines: Lines, start: int, end: int, budget: Budget) -> tuple[int | None, str]:
    """(last line of the first half, outcome): outcome is split | degraded | fallback | none."""
    total = lines.size(start, end)
    least_bad: tuple[float, int, int] | None = None
    for scope in scopes(root, start, end):
        kids = [c for c in scope.named_children if _overlaps(c, start, end) and meaningful(c, budget.scale)]
        if len(kids) < 2:
            continue
        usable: tuple[float, int] | None = None
        for line in sorted({end_row(k) for k in kids[:-1]}):
            if not start <= line < end:
                continue
            first = lines.size(start, line)
            smaller = min(first, total - first)
            balance = abs(first - total / 2)
            if smaller >= budget.minimum and (usable is None or balance < usable[0]):
                usable = (balance, line)
            penalty = 10000 if smaller < budget.small else 5000 if smaller < 2 * budget.small else 0
            if least_bad is None or balance + penalty < least_bad[0]:
                least_bad = (balance + penalty, line, smaller)
        if usable is not None:
            return usable[1], "split"
    if least_bad is not None:
        return least_bad[1], "split" if least_bad[2] >= budget.minimum else "degraded"
    return middle_line(lines, start, end)


def middle_line(lines: Lines, start: int, end: int) -> tuple[int | None, str]:
    if end <= start:
        return None, "none"
    half = lines.size(start, end) / 2
    best = min(range(start, end), key=lambda line: abs(lines.size(start, line) - half))
    return best, "fallback"
