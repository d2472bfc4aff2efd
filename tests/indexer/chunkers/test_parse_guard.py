"""Parsing is bounded: input that sends tree-sitter's error recovery into a spin still chunks."""

from __future__ import annotations

import time

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
