"""The syntax-aware partitioner, for every grammar: TypeScript, JavaScript, the table-driven
languages and config files share it; only the Vocabulary differs.

Start with the whole file as one range; while a range exceeds the budget, split it once where the
AST offers the best-balanced boundary (tssplit); describe each resulting chunk (tsmeta).

Time is linear in the file's size whatever its shape: below tree.MAX_DEPTH levels ranges split
by lines, past the work allowance the rest of the file does, and a file made mostly of lines
longer than the budget (a big minified bundle) is not parsed at all. All of these are marked
`fallback-split`; lines longer than the budget are cut into pieces afterwards (pieces.fit).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import breadcrumb
from monodex.indexer.chunkers.lines import Lines, Range, greedy_windows, merge_blank
from monodex.indexer.chunkers.tsmeta import kind_and_symbol
from monodex.indexer.chunkers.tssplit import DEGRADED, FALLBACK, SizeBudget, find_split
from monodex.indexer.syntax.tree import WORK_BASE, WORK_PER_BYTE, OutOfWork, Tree, imports_end
from monodex.indexer.syntax.vocab import Vocabulary

MARKERS = {DEGRADED: "degraded-ast-split", FALLBACK: "fallback-split"}

Parse = Callable[[str, str, SizeBudget], Tree | None]  # (text, relative path, budget) -> tree or None


def partition(tree: Tree, lines: Lines, budget: SizeBudget) -> list[Range]:
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


def chunk_parsed(text: str, ctx: FileContext, *, parse: Parse, kind: str) -> list[Chunk]:
    """Chunks that tile `text`, each of `kind` (a `content` chunk inside the leading import block
    is `imports`); never raises on any text (a failed parse falls back to lines)."""
    if not text.strip():
        return []
    lines = Lines.of(text)
    budget = SizeBudget.of(ctx.budget)
    tree = None if minified(lines, ctx.budget) else parse(text, ctx.relative_path, budget)
    if tree is None:
        windows = greedy_windows(lines, 0, len(lines.lines) - 1, ctx.budget)
        ranges = merge_blank([(a, b, MARKERS[FALLBACK]) for a, b in windows], lines, ctx.budget)
        return [_chunk(lines, ctx, r, ("code", None), kind) for r in ranges]
    last_import = _imports_end(tree)
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
        return kind_and_symbol(tree, lines, r[0], r[1])
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


def tree_of(root: Any | None, budget: SizeBudget, data_size: int, vocab: Vocabulary) -> Tree | None:
    """A Tree over a parsed root with the work allowance for a file of `data_size` bytes; None
    for a cancelled parse or a file with nothing in it the grammar names."""
    if root is None or not root.named_children:
        return None
    return Tree(root, budget.scale, vocab=vocab, allowance=WORK_BASE + WORK_PER_BYTE * data_size)
