"""The TypeScript partitioner (`typescript`): the only importer of tree-sitter.

Start with the whole file as one range; while a range exceeds the budget, split it once where the
AST offers the best-balanced boundary (tssplit); describe each resulting chunk (tsmeta).

Time is linear in the file's size whatever its shape: below tstree.MAX_DEPTH levels ranges split
by lines, past the work allowance the rest of the file does, and a file made mostly of lines
longer than the budget (a big minified bundle) is not parsed at all. All of these are marked
`fallback-split`; lines longer than the budget are cut into pieces afterwards (pieces.fit).
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
from monodex.indexer.chunkers.tstree import WORK_BASE, WORK_PER_BYTE, OutOfWork, Tree, imports_end
from tree_sitter import Language, Parser

name = "typescript"
version = "v2"

MARKERS = {DEGRADED: "degraded-ast-split", FALLBACK: "fallback-split"}


@lru_cache(maxsize=2)
def _parser(tsx: bool) -> Parser:
    """One parser per grammar for the whole process (creating one costs more than a small parse)."""
    grammar = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return Parser(Language(grammar))


def parse(text: str, relative_path: str, budget: Budget) -> Tree | None:
    tsx = posixpath.splitext(relative_path)[1].lower() in (".tsx", ".jsx")
    data = text.encode("utf-8", "surrogatepass")
    # tree-sitter's error recovery can run away: 8 lines of CRLF junk with a NUL byte made the TSX
    # grammar parse for minutes while growing to gigabytes. A progress callback cancels it (it is
    # only honoured with a read callback, which measured no slower). Parsing measured ~13 MB/s
    # (270 KB in 0.02 s), so this deadline only ever stops a runaway.
    deadline = time.monotonic() + 1.0 + len(data) / 200_000
    # The read callback also serves every `node.text` later: returning the rest of the file copied
    # it once per symbol name (quadratic: 4.1 s of 6 s for 20,000 nested objects). 8 KiB a read
    # parses as fast.
    try:
        tree = _parser(tsx).parse(
            lambda offset, _point: data[offset : offset + 8192],
            progress_callback=lambda _offset, _has_error: time.monotonic() > deadline,
        )
    except (ValueError, RuntimeError):  # cancelled ("Parsing failed"): fall back to line windows
        _parser(tsx).reset()  # else the next parse would resume this one
        return None
    root = tree.root_node
    allowance = WORK_BASE + WORK_PER_BYTE * len(data)
    return Tree(root, budget.scale, allowance=allowance) if root.named_children else None


def partition(tree: Tree, lines: Lines, budget: Budget) -> list[Range]:
    """Split oversized ranges until every range fits or is a single line; when the tree's work
    allowance runs out, the ranges left split into line windows marked `fallback-split`."""
    done: list[Range] = []
    todo: list[Range] = [(0, len(lines.lines) - 1, "")]
    while todo:
        start, end, marker = todo.pop()
        if start == end or lines.size(start, end) <= budget.target:  # a single line has no split
            done.append((start, end, marker))
            continue
        try:
            found = find_split(tree, lines, start, end, budget)
        except OutOfWork:
            for a, b, _ in [(start, end, marker), *reversed(todo)]:
                done += [(x, y, MARKERS[FALLBACK]) for x, y in greedy_windows(lines, a, b, budget.target)]
            return done
        if found is None:
            done.append((start, end, marker))
            continue
        line, outcome = found
        mark = MARKERS.get(outcome, marker)
        todo += [(line + 1, end, mark), (start, line, mark)]  # first half popped first: in order
    return done


# Parsing dense minified code runs ~3 MB/s (a 5 MB bundle: 1.8 s); below this size it is cheap
# enough to keep the AST's symbol for the pieces.
MINIFIED_PARSE_LIMIT = 256 * 1024


def minified(lines: Lines, budget: int) -> bool:
    """A big file with more than half its bytes in lines longer than the budget: those are cut
    into pieces whatever the AST says, so it is not parsed."""
    prefix = lines.prefix
    if prefix[-1] <= MINIFIED_PARSE_LIMIT:
        return False
    long = sum(b - a for a, b in zip(prefix, prefix[1:], strict=False) if b - a > budget)
    return long * 2 > prefix[-1]


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    """Chunks that tile `text`; never raises on any text (a failed parse falls back to lines)."""
    if not text.strip():
        return []
    lines = Lines.of(text)
    budget = Budget.of(ctx.budget)
    tree = None if minified(lines, ctx.budget) else parse(text, ctx.relative_path, budget)
    if tree is None:
        windows = greedy_windows(lines, 0, len(lines.lines) - 1, ctx.budget)
        ranges = merge_blank([(a, b, MARKERS[FALLBACK]) for a, b in windows], lines, ctx.budget)
        return [_chunk(lines, ctx, r, ("code", None), file_kind(ctx.relative_path, name)) for r in ranges]
    kind, last_import = file_kind(ctx.relative_path, name), _imports_end(tree)
    ranges = merge_blank(partition(tree, lines, budget), lines, ctx.budget)
    # Describing walks one path of at most MAX_DEPTH nodes a chunk: a fresh allowance for that.
    tree.allowance = tree.work + WORK_BASE + WORK_PER_BYTE * lines.prefix[-1]
    chunks = []
    for r in ranges:
        this_kind = "imports" if kind == "content" and r[1] <= last_import else kind
        chunks.append(_chunk(lines, ctx, r, _describe(tree, lines, r), this_kind))
    return chunks


def _imports_end(tree: Tree) -> int:
    try:
        return imports_end(tree)
    except OutOfWork:  # a program of more children than the allowance: no import block then
        return -1


def _describe(tree: Tree, lines: Lines, r: Range) -> tuple[str, str | None]:
    try:
        return describe(tree, lines, r[0], r[1])
    except OutOfWork:
        return "code", None


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
