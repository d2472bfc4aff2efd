"""Lines that keep their terminators, byte-size prefix sums, and chunks built from line ranges."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate


def split_lines(text: str) -> list[str]:
    """Split on '\\n' only (str.splitlines also splits on \\x0b, \\x85, \\u2028, ... and drifts
    from git's line numbers); every line keeps its terminator, so joining gives the text back."""
    parts = text.split("\n")
    lines = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


@dataclass(frozen=True)
class Lines:
    lines: list[str]
    prefix: list[int]  # prefix[i] = UTF-8 bytes of lines[:i]

    @classmethod
    def of(cls, text: str) -> Lines:
        lines = split_lines(text)
        if text.isascii():  # most source files: a character is a byte
            return cls(lines, [0, *accumulate(map(len, lines))])
        sizes = (len(ln.encode("utf-8", "surrogatepass")) for ln in lines)
        return cls(lines, [0, *accumulate(sizes)])

    def size(self, start: int, end: int) -> int:
        """Bytes of lines[start..end] (0-based, inclusive)."""
        return self.prefix[end + 1] - self.prefix[start]

    def text(self, start: int, end: int) -> str:
        return "".join(self.lines[start : end + 1])

    def blank(self, start: int, end: int) -> bool:
        return not self.text(start, end).strip()


Range = tuple[int, int, str]  # start, end (0-based lines, inclusive), split marker


def merge_blank(ranges: list[Range], lines: Lines, budget: int) -> list[Range]:
    """Whitespace-only ranges join a neighbour instead of being dropped, so chunks still tile:
    the previous range if that stays within the budget, else the next one if that does; where
    neither has room, the whitespace stays a range of its own (the budget is never exceeded)."""
    out: list[Range] = []
    for start, end, marker in ranges:
        if (
            out
            and (lines.blank(start, end) or lines.blank(out[-1][0], out[-1][1]))
            and lines.size(out[-1][0], end) <= budget
        ):
            out[-1] = (out[-1][0], end, out[-1][2] or marker)
        else:
            out.append((start, end, marker))
    return out


def greedy_windows(lines: Lines, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """Consecutive line windows each at most `budget` bytes (a longer single line stands alone;
    `pieces.fit` cuts it later)."""
    out = []
    first = start
    for i in range(start, end + 1):
        if i > first and lines.size(first, i) > budget:
            out.append((first, i - 1))
            first = i
    out.append((first, end))
    return out
