"""The TypeScript partitioner: the only importer of tree-sitter."""

from __future__ import annotations

import posixpath
from functools import lru_cache
from typing import Any

import tree_sitter_typescript
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import breadcrumb
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.lines import Lines, greedy_windows
from monodex.indexer.chunkers.tsnodes import QUALIFIERS, end_row, meaningful, name_of, type_of
from monodex.indexer.chunkers.tssplit import Budget, find_split
from tree_sitter import Language, Parser

name = "typescript"
version = "v2"

Range = tuple[int, int, str]  # start, end (0-based, inclusive), marker


@lru_cache(maxsize=2)
def _parser(tsx: bool) -> Parser:
    lang = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return Parser(Language(lang))


def _partition(root: Any, lines: Lines, budget: Budget) -> list[Range]:
    ranges: list[Range] = [(0, len(lines.lines) - 1, "")]
    changed = True
    while changed:
        changed = False
        out: list[Range] = []
        for start, end, marker in ranges:
            if lines.size(start, end) <= budget.target or end == start:
                out.append((start, end, marker))
                continue
            line, outcome = find_split(root, lines, start, end, budget)
            if line is None:
                out.append((start, end, marker))
                continue
            mark = {"degraded": "degraded-ast-split", "fallback": "fallback-split"}.get(outcome, "")
            out += [(start, line, mark or marker), (line + 1, end, mark or marker)]
            changed = True
        ranges = out
    return _merge_blank(ranges, lines)


def _merge_blank(ranges: list[Range], lines: Lines) -> list[Range]:
    out: list[Range] = []
    for start, end, marker in ranges:
        if out and (lines.blank(start, end) or lines.blank(out[-1][0], out[-1][1])):
            out[-1] = (out[-1][0], end, out[-1][2] or marker)
        else:
            out.append((start, end, marker))
    return out


def _describe(root: Any, lines: Lines, start: int, end: int, scale: float) -> tuple[str, str | None]:
    """(chunk_type, qualified symbol) of the smallest meaningful node holding the range.

    Splits fall right after a declaration, so a chunk usually starts with the next one's doc
    comment: leading comments and blank lines do not count when choosing the describing node."""
    while start < end and _is_comment_or_blank(lines.lines[start]):
        start += 1
    # ...and a chunk that ends a class also carries its closing brace.
    while end > start and not lines.lines[end].strip().strip("});,]"):
        end -= 1
    first = lines.lines[start]
    indent = len(first.encode("utf-8", "surrogatepass")) - len(
        first.lstrip().encode("utf-8", "surrogatepass")
    )
    last = lines.lines[end].rstrip("\r\n").encode("utf-8", "surrogatepass")
    node = root.descendant_for_point_range((start, indent), (end, len(last)))
    while node is not None and not (
        meaningful(node, scale) and node.start_point[0] <= start and end_row(node) >= end
    ):
        node = node.parent
    if node is None:
        return "code", None
    symbol = name_of(node)
    owners = []
    parent = node.parent
    while parent is not None:
        if parent.type in QUALIFIERS and (owner := name_of(parent)):
            owners.append(owner)
        parent = parent.parent
    if symbol and owners:
        symbol = ".".join([*reversed(owners), symbol])
    return type_of(node), symbol


def _is_comment_or_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("//", "/*", "*"))


def _imports_end(root: Any) -> int:
    last = -1
    for child in root.named_children:
        if child.type == "import_statement":
            last = end_row(child)
        elif child.type == "comment" and last < 0:
            continue
        else:
            break
    return last


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    lines = Lines.of(text)
    if not lines.lines or not text.strip():
        return []
    budget = Budget.of(ctx.budget)
    tree = _parser(ctx.relative_path.endswith(".tsx")).parse(text.encode("utf-8", "surrogatepass"))
    root = tree.root_node
    if not root.named_children:
        spans = greedy_windows(lines, 0, len(lines.lines) - 1, ctx.budget)
        ranges: list[Range] = _merge_blank([(s, e, "") for s, e in spans], lines)
    else:
        ranges = _partition(root, lines, budget)
    imports_end = _imports_end(root)
    kind = file_kind(ctx.relative_path, "typescript")
    chunks = []
    for start, end, marker in ranges:
        chunk_type, symbol = _describe(root, lines, start, end, budget.scale)
        this_kind = "imports" if kind == "content" and end <= imports_end else kind
        chunks.append(
            Chunk(
                text=lines.text(start, end),
                start_line=start + 1,
                end_line=end + 1,
                symbol_name=symbol,
                chunk_type=chunk_type,
                chunk_kind=this_kind,
                breadcrumb=breadcrumb(ctx.package_name, ctx.relative_path, symbol, marker),
            )
        )
    return chunks


def is_typescript(path: str) -> bool:
    return posixpath.splitext(path)[1] in (".ts", ".tsx", ".mts", ".cts")
