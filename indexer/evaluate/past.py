"""The co-change counts a question from history is ranked with: only the commits that had landed
before its own change, so no question learns from the change it was taken from.

A change lands on the first-parent line together with what it merges: a pull request merged with
a merge commit brings its branch's commits, dated before the merge, and those touched the very
files the question asks for. So the cut is by ancestry, not by date: the commits before a
first-parent commit are those reachable from its first parent."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from monodex.indexer.history import changed, subjects
from monodex.indexer.history.changed import Commit
from monodex.indexer.history.cochanges import Counts
from monodex.indexer.points import lexical


class Growing:
    """Counts over a prefix of `commits` (oldest first) that only grows: ask for prefixes in
    increasing order, as questions are ranked oldest first."""

    def __init__(self, commits: Sequence[Commit], keep: Callable[[str], bool]) -> None:
        self.commits, self.keep = commits, keep
        self.next = 0
        self.counts = Counts()

    def upto(self, n: int) -> Counts:
        """The counts of the first `n` commits. A smaller `n` than before is an error: the counts
        hold the later commits already, and a question asked out of order would learn from them."""
        n = min(n, len(self.commits))
        if n < self.next:
            raise ValueError(f"counts of {self.next} commits asked for {n}: ask oldest first")
        while self.next < n:
            commit = self.commits[self.next]
            files = changed.counted(commit.files, self.keep)
            if files is not None:
                self.counts.add(files, lexical.query_indices(commit.subject))
                if subjects.routine(commit.subject) is None:
                    self.counts.changes.append(tuple(files))
            self.next += 1
        return self.counts


def landed(newest_first: Sequence[Commit], tip: str) -> tuple[list[Commit], dict[str, int]]:
    """The commits in the order they landed on `tip`'s first-parent line, oldest first (each
    first-parent commit after the branch it merged), and for each first-parent commit how many
    landed before it. Commits the walk did not read (changed.MAX_COMMITS) are left out."""
    by_oid = {c.oid: c for c in newest_first}
    line: list[str] = []
    at: str | None = tip
    while at is not None and at in by_oid:
        line.append(at)
        parents = by_oid[at].parents
        at = parents[0] if parents else None
    order: list[Commit] = []
    before: dict[str, int] = {}
    seen: set[str] = set()
    for head in reversed(line):
        before[head] = len(order)
        stack, batch = [head], []
        while stack:
            oid = stack.pop()
            if oid in seen or oid not in by_oid:
                continue
            seen.add(oid)
            batch.append(by_oid[oid])
            stack.extend(by_oid[oid].parents)
        order.extend(reversed(batch))
    return order, before


def as_of(repo: Path, tip: str, keep: Callable[[str], bool]) -> tuple[Growing, dict[str, int]]:
    """Counts that grow along `tip`'s history as it landed, and for each first-parent commit how
    many commits landed before it: `growing.upto(before[oid])` is the history a question from
    that change is ranked with (`monodex eval`, bench/answers.py)."""
    text = changed.log(repo, tip)
    order, before = landed(list(changed.follow_moves(changed.parse_log(text))), tip)
    return Growing(order, keep), before
