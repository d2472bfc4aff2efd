"""Hostile files (issue 12): deep nesting, huge lines, long CRLF and multi-byte lines.

Every chunk fits the budget and the chunks tile the file. No timings are asserted here: the time
each file takes is bench/hostile.py's figure; these files took minutes before the partitioner had
a depth limit and a work allowance (40,000 nested `if`s: 286 s).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from monodex.indexer.chunkers import budget_for, chunk_file, typescript
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.chunkers.pieces import cut_line
from monodex.indexer.chunkers.tssplit import SizeBudget
from monodex.indexer.syntax.tree import MAX_DEPTH

BUDGET = budget_for(256)
Tiles = Callable[[str, list[Chunk], int], None]
NAMES = [
    "nested-if-40000",
    "nested-if-20000",
    "nested-arrays",
    "nested-objects",
    "nested-parens",
    "nested-templates",
    "nested-jsx",
    "minified-5mb",
    "markdown-1mb-line",
    "markdown-1mb-heading",
    "long-lines-ts",
    "long-lines-md",
    "long-lines-text",
]


def markers(chunks: list[Chunk]) -> set[str]:
    return {c.breadcrumb.rsplit(":", 1)[1] for c in chunks if c.breadcrumb.endswith("]")}


@pytest.mark.parametrize("name", NAMES)
def test_hostile_file_chunks_fit_the_budget_and_tile(
    name: str, hostile: dict[str, tuple[str, str, str]], tiles: Tiles
) -> None:
    strategy, path, text = hostile[name]
    chunks = chunk_file(strategy, text, FileContext(path, "pkg", BUDGET))
    tiles(text, chunks, BUDGET)


def test_hostile_names_cover_every_generated_file(hostile: dict[str, tuple[str, str, str]]) -> None:
    assert sorted(hostile) == sorted(NAMES)


def test_nesting_past_the_depth_limit_falls_back_to_line_splits_and_is_marked(
    hostile: dict[str, tuple[str, str, str]],
) -> None:
    _, path, text = hostile["nested-jsx"]
    chunks = chunk_file("typescript", text, FileContext(path, "pkg", BUDGET))
    # The outer levels still split between JSX elements; below the limit, by lines, marked.
    assert chunks[0].breadcrumb == "pkg:App.tsx:App" and chunks[0].symbol_name == "App"
    deep = [c for c in chunks if c.start_line > 2 * MAX_DEPTH and c.end_line < 20_000]
    assert deep and all(c.breadcrumb.endswith(":[fallback-split]") for c in deep)


def test_a_huge_line_is_cut_into_marked_pieces_of_one_line(hostile: dict[str, tuple[str, str, str]]) -> None:
    _, path, text = hostile["minified-5mb"]
    chunks = chunk_file("typescript", text, FileContext(path, "", BUDGET))
    assert len(chunks) >= len(text) // BUDGET
    assert {(c.start_line, c.end_line) for c in chunks} == {(1, 1)}
    assert markers(chunks) == {"[byte-split]"}
    assert all(BUDGET - 4 < len(c.text.encode()) <= BUDGET for c in chunks[:-1])


def test_pieces_keep_characters_and_crlf_whole() -> None:
    # Byte 801 falls inside the 4-byte character: the cut goes before it. The next line is a
    # chunk of its own.
    text = "x" * 800 + "𝄞" + "y" * 700 + "\r\n" + "z\r\n"
    chunks = chunk_file("lineBased", text, FileContext("a.txt", "", 801))
    assert [c.text for c in chunks] == ["x" * 800, "𝄞" + "y" * 700 + "\r\n", "z\r\n"]
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 1), (1, 1), (2, 2)]
    # The line's end alone would be the last piece: the last two share the bytes instead.
    assert cut_line("a" + " " * 799 + "\r\n", 801) == ["a" + " " * 400, " " * 399 + "\r\n"]
    for budget in range(40, 48):  # every cut position near a CRLF or a character of 2-4 bytes
        for line in ["é€𝄞" * 20 + "a" * k + "\r\n" for k in range(12)]:
            pieces = cut_line(line, budget)
            assert "".join(pieces) == line and all(p and not p.endswith("\r") for p in pieces)
            assert all(len(p.encode()) <= budget for p in pieces)
            assert len(pieces[-1].encode()) >= budget // 5 or len(pieces) == 1


def test_a_long_heading_is_cut_and_its_title_bounded(hostile: dict[str, tuple[str, str, str]]) -> None:
    _, path, text = hostile["markdown-1mb-heading"]
    chunks = chunk_file("markdown", text, FileContext(path, "docs", BUDGET))
    assert chunks[0].symbol_name is not None and len(chunks[0].symbol_name) <= 200
    assert all(len(c.breadcrumb) < 300 for c in chunks)


def test_whitespace_never_pushes_a_chunk_past_the_budget(tiles: Tiles) -> None:
    # Two windows of exactly 800 bytes, then blank lines: the third has no neighbour with room.
    text = "".join(f"const v{i:04} = {i:04};\n" for i in range(80)) + "\n" * 3
    for strategy, path in [("lineBased", "a.txt"), ("markdown", "a.md"), ("typescript", "a.ts")]:
        chunks = chunk_file(strategy, text, FileContext(path, "", BUDGET))
        tiles(text, chunks, BUDGET)
        assert strategy != "lineBased" or chunks[-1].text == "\n"  # the others split elsewhere


def test_out_of_work_degrades_the_rest_of_the_file_to_line_windows(
    ts_sources: dict[str, str], tiles: Tiles
) -> None:
    text = ts_sources["JsonFile.ts"]
    lines, budget = Lines.of(text), SizeBudget.of(BUDGET)
    tree = typescript.parse(text, "src/JsonFile.ts", budget)
    assert tree is not None
    normal = typescript.partition(tree, lines, budget)
    tree = typescript.parse(text, "src/JsonFile.ts", budget)
    assert tree is not None
    tree.allowance = 400  # node visits; a full partition of this file needs several thousand
    starved = typescript.partition(tree, lines, budget)
    assert [r[:2] for r in starved] != [r[:2] for r in normal]
    assert starved[0] == normal[0] and not starved[0][2]  # splits made before the allowance ran out stay
    assert starved[-1][2] == "fallback-split"
    ranges = [(a, b) for a, b, _ in starved]
    assert ranges == sorted(ranges) and ranges[0][0] == 0 and ranges[-1][1] == len(lines.lines) - 1
    assert all(b + 1 == a2 for (_, b), (a2, _) in zip(ranges, ranges[1:], strict=False))
    assert all(lines.size(a, b) <= BUDGET for a, b in ranges)


def test_realistic_files_stay_far_from_the_work_allowance(ts_sources: dict[str, str]) -> None:
    for name, text in ts_sources.items():
        budget = SizeBudget.of(BUDGET)
        tree = typescript.parse(text, f"src/{name}", budget)
        assert tree is not None and tree.allowance is not None
        typescript.partition(tree, Lines.of(text), budget)
        assert tree.work * 4 < tree.allowance, (name, tree.work, tree.allowance)
