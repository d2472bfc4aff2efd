"""Parsing is bounded: input that sends tree-sitter's error recovery into a spin still chunks."""

from __future__ import annotations

import gc
import time
import tracemalloc

from monodex.indexer.chunkers import budget_for, chunk_file
from monodex.indexer.chunkers.base import FileContext

# Found by fuzzing: with CRLF line ends and a NUL byte, the TSX grammar (tree-sitter-typescript
# 0.23.2, tree-sitter 0.26.1) parses these 80 bytes for minutes while growing to gigabytes.
RUNAWAY = "\r\n".join(
    ["interface I {", "type T = {", "\x00", "case 1:", "*/", "<div>", "case 1:", "import a from 'b';"]
)


def test_runaway_parse_is_cancelled_and_falls_back_to_line_windows() -> None:
    started = time.perf_counter()
    chunks = chunk_file("typescript", RUNAWAY, FileContext("src/App.tsx", "pkg", budget_for(256)))
    assert time.perf_counter() - started < 5
    assert "".join(c.text for c in chunks) == RUNAWAY
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 8)]


def test_the_same_text_parses_normally_with_the_typescript_grammar() -> None:
    chunks = chunk_file("typescript", RUNAWAY, FileContext("src/app.ts", "pkg", budget_for(256)))
    assert "".join(c.text for c in chunks) == RUNAWAY


def test_a_cancelled_parse_does_not_leak_into_the_next_file() -> None:
    ctx = FileContext("src/App.tsx", "pkg", budget_for(256))
    chunk_file("typescript", RUNAWAY, ctx)
    text = "export function App() {\n  return <div>hello</div>;\n}\n"
    (only,) = chunk_file("typescript", text, ctx)
    assert (only.symbol_name, only.chunk_type) == ("App", "function")


def test_parsing_keeps_nothing_of_the_files_parsed() -> None:
    """tree-sitter 0.26.1 never releases what a read callback returns (parser_read_wrapper takes
    a buffer of it and drops only that): a copy per read kept every file's text for the life of
    the process, and a crawl's worker grew by ~6 MB every 1,000 files (150 MB at 18,000)."""
    text = "".join(
        f"export function step{i}(input: string): string {{\n  return input;\n}}\n" for i in range(600)
    )
    ctx = FileContext("src/steps.ts", "pkg", budget_for(256))
    chunk_file("typescript", text, ctx)  # the parser and its grammar made before measuring
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            chunk_file("typescript", text, ctx)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < len(text.encode()), f"{kept:,} bytes kept after 20 parses of {len(text):,}"
