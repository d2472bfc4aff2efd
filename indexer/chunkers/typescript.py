"""The TypeScript partitioner (`typescript`): the only importer of tree-sitter.

Start with the whole file as one range; while a range exceeds the budget, split it once where the
AST offers the best-balanced boundary (tssplit); describe each resulting chunk (tsmeta).
"""

from __future__ import annotations

import posixpath
import time
from functools import lru_cache

import tree_sitter_typescript
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import breadcrumb
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.lines import Lines, Range, greedy_windows, merge_blank
from monodex.indexer.chunkers.tsmeta import describe
from monodex.indexer.chunkers.tssplit import DEGRADED, FALLBACK, Budget, find_split
from monodex.indexer.chunkers.tstree import Tree, imports_end
from tree_sitter import Language, Parser

name = "typescript"
version = "v2"

MARKERS = {DEGRADED: "degraded-ast-split", FALLBACK: "fallback-split"}


@lru_cache(maxsize=2)
def _parser(tsx: bool) -> Parser:
    """One parser per grammar for the whole process (creating one costs more than a small parse)."""
    grammar = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return Parser(Language(grammar))


def _parse(text: str, relative_path: str, budget: Budget) -> Tree | None:
    tsx = posixpath.splitext(relative_path)[1].lower() in (".tsx", ".jsx")
    data = text.encode("utf-8", "surrogatepass")
    # tree-sitter's error recovery can run away: 8 lines of CRLF junk with a NUL byte made the TSX
    # grammar parse for minutes while growing to gigabytes. A progress callback cancels it (it is
    # only honoured with a read callback, which measured no slower). Parsing measured ~13 MB/s
    # (270 KB in 0.02 s), so this deadline only ever stops a runaway.
    deadline = time.monotonic() + 1.0 + len(data) / 200_000
    try:
        tree = _parser(tsx).parse(
            lambda offset, _point: data[offset:],
            progress_callback=lambda _offset, _has_error: time.monotonic() > deadline,
        )
    except (ValueError, RuntimeError):  # cancelled ("Parsing failed"): fall back to line windows
        _parser(tsx).reset()  # else the next parse would resume this one
        return None
    root = tree.root_node
    return Tree(root, budget.scale) if root.named_children else None


def partition(tree: Tree, lines: Lines, budget: Budget) -> list[Range]:
    """Split oversized ranges until every range fits or cannot be split (a single long line)."""
    done: list[Range] = []
    todo: list[Range] = [(0, len(lines.lines) - 1, "")]
    while todo:
        start, end, marker = todo.pop()
        found = (
            None if lines.size(start, end) <= budget.target else find_split(tree, lines, start, end, budget)
        )
        if found is None:
            done.append((start, end, marker))
            continue
        line, outcome = found
        mark = MARKERS.get(outcome, marker)
        todo += [(line + 1, end, mark), (start, line, mark)]  # first half popped first: in order
    return done


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    """Chunks that tile `text`; never raises on any text (a failed parse falls back to lines)."""
    if not text.strip():
        return []
    lines = Lines.of(text)
    budget = Budget.of(ctx.budget)
    tree = _parse(text, ctx.relative_path, budget)
    if tree is None:
        windows = greedy_windows(lines, 0, len(lines.lines) - 1, ctx.budget)
        ranges = merge_blank([(a, b, "") for a, b in windows], lines, ctx.budget)
        return [_chunk(lines, ctx, r, ("code", None), "content") for r in ranges]
    kind, last_import = file_kind(ctx.relative_path, name), imports_end(tree)
    chunks = []
    for r in merge_blank(partition(tree, lines, budget), lines, ctx.budget):
        this_kind = "imports" if kind == "content" and r[1] <= last_import else kind
        chunks.append(_chunk(lines, ctx, r, describe(tree, lines, r[0], r[1]), this_kind))
    return chunks


def _chunk(lines: Lines, ctx: FileContext, r: Range, about: tuple[str, str | None], kind: str) -> Chunk:
    (start, end, marker), (chunk_type, symbol) = r, about
    return Chunk(
        text=lines.text(start, end),
        start_line=start + 1,
        end_line=end + 1,
        symbol_name=symbol,
        chunk_type=chunk_type,
        chunk_kind=kind,
        breadcrumb=breadcrumb(ctx.package_name, ctx.relative_path, symbol, MARKERS.get(marker, marker)),
    )
