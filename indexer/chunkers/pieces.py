"""The budget is a hard limit: a chunk over it is cut into whole-line windows, and a line longer
than the budget into pieces of at most the budget in UTF-8 bytes; then a whitespace-only chunk
joins a neighbour that has room for it.

Before this, a line of any length was one chunk: a 5 MB minified bundle became one 5 MB chunk that
the embedder truncated to its first 256 tokens, and one search hit returned 921 KB of text. Pieces
of one line share its line number (start_line == end_line), so the chunks of a file still tile it:
each starts on the line where the one before ended, or on the next line when that one ended with
its newline. Cuts never fall inside a character or between the CR and LF of a line ending.
"""

from __future__ import annotations

import re
from dataclasses import replace

from monodex.indexer.chunkers.base import Chunk
from monodex.indexer.chunkers.lines import Lines, greedy_windows

MARKER = "byte-split"
_MARK = re.compile(r":\[[a-z-]+\]$")  # a split marker ends a breadcrumb; ':' inside names is %3A


def fit(chunks: list[Chunk], budget: int) -> list[Chunk]:
    """The chunks, each one over `budget` bytes replaced by pieces that fit; whitespace-only
    chunks joined to a neighbour where it has room (the one before first)."""
    out: list[Chunk] = []
    for c in chunks:
        if len(c.text) <= budget // 4 or _size(c.text) <= budget:  # 4 bytes a character at most
            out.append(c)
        else:
            out += _cut_chunk(c, budget)
    return absorb_blank(out, budget)


def absorb_blank(chunks: list[Chunk], budget: int) -> list[Chunk]:
    """Whitespace joins the chunk before it, else the one after it, within the budget; only
    where neither has room does a whitespace-only chunk remain (rare: both are full)."""
    out: list[Chunk] = []
    sizes: list[int] = []
    for c in chunks:
        size = _size(c.text)
        prev = out[-1] if out else None
        if prev is not None and sizes[-1] + size <= budget and not (prev.text.strip() and c.text.strip()):
            keep = prev if prev.text.strip() else c  # what the joined chunk is about
            out[-1] = replace(keep, text=prev.text + c.text, start_line=prev.start_line, end_line=c.end_line)
            sizes[-1] += size
        else:
            out.append(c)
            sizes.append(size)
    return out


def _cut_chunk(c: Chunk, budget: int) -> list[Chunk]:
    lines = Lines.of(c.text)
    out = []
    for a, b in greedy_windows(lines, 0, len(lines.lines) - 1, budget):
        line = c.start_line + a
        if lines.size(a, b) <= budget:
            out.append(replace(c, text=lines.text(a, b), start_line=line, end_line=c.start_line + b))
            continue
        crumb = _MARK.sub("", c.breadcrumb) + f":[{MARKER}]"
        for piece in cut_line(lines.lines[a], budget):
            out.append(replace(c, text=piece, start_line=line, end_line=line, breadcrumb=crumb))
    return out


def cut_line(line: str, budget: int) -> list[str]:
    """Pieces of at most `budget` bytes that join to `line`, each as full as it can be but the last
    two: when the last would be small (under a fifth of the budget, like the line's end alone),
    those two share their bytes evenly."""
    data = line.encode("utf-8", "surrogatepass")
    parts, start = [], 0
    while len(data) - start > budget:
        end = _cut_at(data, start, start + budget)
        parts.append(data[start:end])
        start = end
    parts.append(data[start:])
    if len(parts) > 1 and len(parts[-1]) < budget // 5:
        joined = parts[-2] + parts[-1]
        middle = _cut_at(joined, 0, len(joined) // 2)
        parts[-2:] = [joined[:middle], joined[middle:]]
    return [p.decode("utf-8", "surrogatepass") for p in parts]


def _cut_at(data: bytes, start: int, at: int) -> int:
    """A cut at or before `at` (after `start`) that splits no character and no CRLF."""
    end = _boundary(data, at, forward=False)
    if data[end - 1 : end + 1] == b"\r\n":
        end -= 1
    if end <= start:  # a budget under 4 bytes: a piece holds one character at least
        end = _boundary(data, start + 1, forward=True)
    return end


def _boundary(data: bytes, at: int, *, forward: bool) -> int:
    """The nearest code point boundary at or before (after) `at`: not a UTF-8 continuation byte."""
    step = 1 if forward else -1
    while 0 < at < len(data) and data[at] & 0xC0 == 0x80:
        at += step
    return at


def _size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
