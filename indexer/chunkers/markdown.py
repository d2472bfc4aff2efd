"""Markdown by headings: the preamble is kept, tiny sections merge, big ones split at block breaks.

Sections start at strict ATX headings (0-3 spaces, 1-6 `#`, then a space, a tab or the end of the
line) outside ``` and ~~~ fences. The breadcrumb carries the heading *hierarchy* of slugs
(`pkg:README.md:installation/linux`) rather than only the current heading's: "Linux" under
"Installation" and under "Building" stay distinguishable to the embedder and to a reader, and the
last segment is still the heading's unique GitHub anchor, so it can be linked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import Slugger, breadcrumb
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.lines import Lines

name = "markdown"
version = "v2"

# Only the heading's start is a regex: `(.*?)[ \t]*$` and a closing-sequence regex backtracked
# quadratically over a run of spaces (a 20 KB heading took 2.6 s; a 1 MB one, hours).
_HEADING = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)")
TITLE_CHARS = 200  # a title longer than this is cut: it becomes the symbol and the breadcrumb
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_BREAK = re.compile(r"\s*$|\s*([-*+>]|\d+[.)])(\s|$)")  # blank line, list item or quote


@dataclass
class _Section:
    start: int
    end: int
    title: str | None  # None for the text before the first heading
    trail: str  # heading hierarchy as slugs: "installation/linux"


def fenced_lines(lines: Lines) -> list[bool]:
    """Per line: inside a fenced code block (its body or closing fence), where nothing is markup."""
    inside: list[bool] = []
    fence: str | None = None
    for raw in lines.lines:
        m = _FENCE.fullmatch(raw.rstrip("\r\n"))
        inside.append(fence is not None)
        if m and fence is None and not (m[1][0] == "`" and "`" in m[2]):
            fence = m[1]
        elif m and fence is not None and m[1][0] == fence[0] and len(m[1]) >= len(fence) and not m[2].strip():
            fence = None
    return inside


def _heading(line: str) -> tuple[int, str] | None:
    body = line.rstrip("\r\n")
    m = _HEADING.match(body)
    if m is None:
        return None
    return len(m[1]), _without_closing(body[m.end() :].strip(" \t")).strip()[:TITLE_CHARS]


def _without_closing(title: str) -> str:
    """The title without an optional closing sequence (`## Title ##`): `#`s that end it and
    follow a space or a tab, or make up all of it."""
    bare = title.rstrip("#")
    return bare if not bare or bare[-1] in " \t" else title


def _sections(lines: Lines, fenced: list[bool]) -> list[_Section]:
    slugger = Slugger()
    stack: list[tuple[int, str]] = []
    out = [_Section(0, -1, None, "")]
    for i, raw in enumerate(lines.lines):
        found = None if fenced[i] else _heading(raw)
        if found is None:
            continue
        level, title = found
        stack = [(lv, s) for lv, s in stack if lv < level] + [(level, slugger(title))]
        out[-1].end = i - 1
        out.append(_Section(i, i, title, "/".join(s for _, s in stack if s)))
    out[-1].end = len(lines.lines) - 1
    return [s for s in out if s.end >= s.start]


def _merge_tiny(sections: list[_Section], lines: Lines, budget: int) -> list[_Section]:
    """A section under the minimum (20% of the budget) joins the next one while that fits (a
    heading belongs with what follows it: `# Guide` then `## Install`), else the one before."""
    minimum = budget // 5

    def small(s: _Section) -> bool:
        return lines.size(s.start, s.end) < minimum

    forward: list[_Section] = []
    carry: _Section | None = None
    for s in sections:
        if carry is not None and lines.size(carry.start, s.end) <= budget:
            keep = carry if carry.title is not None else s  # a preamble takes the heading after it
            s = _Section(carry.start, s.end, keep.title, keep.trail)
        elif carry is not None:
            forward.append(carry)
        carry = s if small(s) else None
        if carry is None:
            forward.append(s)
    forward += [carry] if carry is not None else []
    out: list[_Section] = []
    for s in forward:
        if out and (small(s) or small(out[-1])) and lines.size(out[-1].start, s.end) <= budget:
            out[-1].end = s.end
        else:
            out.append(s)
    return out


def split_section(
    lines: Lines, fenced: list[bool], start: int, end: int, budget: int
) -> list[tuple[int, int]]:
    """Cut an oversized section before a blank line, fence or list item outside code blocks (the
    last such break that keeps the piece over the minimum), else where the piece fills up."""
    pieces, first, good = [], start, None
    i = start
    while i <= end:
        if i > first and lines.size(first, i) > budget:
            cut = good if good is not None and lines.size(first, good) >= budget // 5 else i - 1
            pieces.append((first, cut))
            first, good = cut + 1, None
            continue  # the rest of the piece, up to line i, may still be too big
        if i > first and not fenced[i] and (_BREAK.match(lines.lines[i]) or _FENCE.match(lines.lines[i])):
            good = i - 1
        i += 1
    pieces.append((first, end))
    return pieces


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    """Chunks that tile `text`: one per section (merged or split to fit the budget). Whitespace-only
    pieces join a neighbour afterwards (`pieces.fit`, for every chunker)."""
    if not text.strip():
        return []
    lines = Lines.of(text)
    fenced = fenced_lines(lines)
    kind = file_kind(ctx.relative_path, name)
    chunks = []
    for s in _merge_tiny(_sections(lines, fenced), lines, ctx.budget):
        crumb = breadcrumb(ctx.package_name, ctx.relative_path, s.trail or None)
        for a, b in split_section(lines, fenced, s.start, s.end, ctx.budget):
            chunks.append(Chunk(lines.text(a, b), a + 1, b + 1, s.title, "markdown-section", kind, crumb))
    return chunks
