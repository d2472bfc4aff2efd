"""Markdown by headings: the preamble is kept, tiny sections merge, big ones split at blank lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import Slugger, breadcrumb
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.lines import Lines

name = "markdown"
version = "v2"

_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_GOOD_CUT = re.compile(r"^\s*$|^ {0,3}(```|~~~)|^\s*([-*+]|\d+[.)])\s")


@dataclass
class _Section:
    start: int
    end: int
    title: str | None
    trail: str  # heading hierarchy as slugs: "installing/linux"


def _sections(lines: Lines) -> list[_Section]:
    slugger = Slugger()
    stack: list[tuple[int, str]] = []
    out = [_Section(0, 0, None, "")]
    fence: str | None = None
    for i, raw in enumerate(lines.lines):
        line = raw.rstrip("\r\n")
        m = _FENCE.match(line)
        if m:
            fence = None if fence == m[1] else (fence or m[1])
            continue
        h = None if fence else _HEADING.match(line)
        if h:
            level, title = len(h[1]), (h[2] or "").rstrip("#").strip()
            stack = [(lv, s) for lv, s in stack if lv < level] + [(level, slugger(title))]
            out.append(_Section(i, i, title, "/".join(s for _, s in stack)))
    for a, b in zip(out, out[1:], strict=False):
        a.end = b.start - 1
    out[-1].end = len(lines.lines) - 1
    return [s for s in out if s.end >= s.start]


def _merge_tiny(sections: list[_Section], lines: Lines, budget: int) -> list[_Section]:
    minimum = budget // 5
    out: list[_Section] = []
    for s in sections:
        prev = out[-1] if out else None
        prev_small = prev is not None and lines.size(prev.start, prev.end) < minimum
        fits = prev is not None and lines.size(prev.start, s.end) <= budget
        if prev is not None and fits and (prev_small or lines.size(s.start, s.end) < minimum):
            if prev.title is None:  # a short preamble joins the first section under its heading
                prev.title, prev.trail = s.title, s.trail
            prev.end = s.end
        else:
            out.append(s)
    return out


def _split(lines: Lines, start: int, end: int, budget: int) -> list[tuple[int, int]]:
    """Cut an oversized section at blank lines, fences or list items, else where it fills up."""
    pieces, first, good = [], start, None
    for i in range(start, end + 1):
        if i > first and lines.size(first, i) > budget:
            cut = good if good is not None and lines.size(first, good) >= budget // 5 else i - 1
            pieces.append((first, cut))
            first, good = cut + 1, None
        if i > first and _GOOD_CUT.match(lines.lines[i]):
            good = i - 1
    pieces.append((first, end))
    return pieces


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    lines = Lines.of(text)
    if not text.strip():
        return []
    kind = file_kind(ctx.relative_path, "markdown")
    chunks = []
    for s in _merge_tiny(_sections(lines), lines, ctx.budget):
        crumb = breadcrumb(ctx.package_name, ctx.relative_path, s.trail or None)
        for a, b in _split(lines, s.start, s.end, ctx.budget):
            chunks.append(Chunk(lines.text(a, b), a + 1, b + 1, s.title, "markdown-section", kind, crumb))
    return _absorb_blank(chunks)


def _absorb_blank(chunks: list[Chunk]) -> list[Chunk]:
    out: list[Chunk] = []
    for c in chunks:
        if out and not c.text.strip():
            p = out[-1]
            out[-1] = Chunk(
                p.text + c.text,
                p.start_line,
                c.end_line,
                p.symbol_name,
                p.chunk_type,
                p.chunk_kind,
                p.breadcrumb,
            )
        else:
            out.append(c)
    return out
