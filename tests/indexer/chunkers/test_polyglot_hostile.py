"""Hostile input in every new language (issue 23): deep nesting, one enormous line, a 5 MB file
and invalid syntax stay bounded (the tree's depth limit and work allowance, as for TypeScript),
tile the file, and mark where they gave up on the syntax. No timings are asserted: the work is
counted (tree.work), and bench/chunking.py times real files."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest
from monodex.indexer.chunkers import CHUNKERS, budget_for, chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.chunkers.partition import partition
from monodex.indexer.chunkers.tssplit import SizeBudget
from monodex.indexer.syntax.tree import MAX_DEPTH, OutOfWork

from tests.indexer.chunkers.conftest import nested

BUDGET = budget_for(256)
DEPTH = 5_000  # 50 times the depth limit
Tiles = Callable[[str, list[Chunk], int], None]

# (path, head, opener, body, closer, tail): DEPTH levels of nested blocks, one level a line.
BRACES = {
    "javascript": ("a.js", "function f(a) {", "if (a > 0) {", "a++;", "}", "}"),
    "rust": ("a.rs", "fn f(mut a: i32) {", "if a > 0 {", "a += 1;", "}", "}"),
    "go": ("a.go", "package a\nfunc f(a int) {", "if a > 0 {", "a++", "}", "}"),
    "java": ("A.java", "class A { void f(int a) {", "if (a > 0) {", "a++;", "}", "}}"),
    "kotlin": ("A.kt", "fun f(a: Int) {", "if (a > 0) {", "println(a)", "}", "}"),
    "swift": ("A.swift", "func f(a: Int) {", "if a > 0 {", "print(a)", "}", "}"),
    "c": ("a.c", "void f(int a) {", "if (a > 0) {", "a++;", "}", "}"),
    "cpp": ("a.cc", "namespace n { void f(int a) {", "if (a > 0) {", "a++;", "}", "}}"),
    "csharp": ("A.cs", "class A { void F(int a) {", "if (a > 0) {", "a++;", "}", "}}"),
    "bash": ("a.sh", "f() {", "if true; then", "x=1", "fi", "}"),
    "json": ("a.json", '{"a":', "[", "1", "]", "}"),
}


def _deep_python(depth: int) -> str:
    """`if` inside `if`, one space of indentation a level (so the file stays small)."""
    return (
        "def f(a):\n"
        + "".join(f"{' ' * (i + 1)}if a > {i}:\n" for i in range(depth))
        + " " * (depth + 1)
        + "a += 1\n"
    )


def _deep_yaml(depth: int) -> str:
    return "".join(f"{' ' * i}k{i}:\n" for i in range(depth)) + " " * depth + "v\n"


def _deep(lang: str) -> tuple[str, str]:
    if lang == "python":
        return "a.py", _deep_python(DEPTH // 5)  # a quadratic file: 1,000 levels is 0.5 MB
    if lang == "yaml":
        return "a.yml", _deep_yaml(DEPTH // 5)
    if lang == "toml":
        return "a.toml", "a = " + "{b = " * DEPTH + "1" + "}" * DEPTH + "\n"
    path, head, opener, body, closer, tail = BRACES[lang]
    return path, nested(opener, body, closer, DEPTH, head=head, tail=tail)


@pytest.mark.parametrize("lang", sorted([*BRACES, "python", "yaml", "toml"]))
def test_deep_nesting_is_bounded_tiles_and_is_marked(lang: str, tiles: Tiles) -> None:
    path, text = _deep(lang)
    budget = SizeBudget.of(BUDGET)
    tree = CHUNKERS[lang].parse(text, path, budget)  # type: ignore[attr-defined]
    if tree is not None:  # the grammar's parse may be cancelled: then it is all line windows
        try:
            partition(tree, Lines.of(text), budget)
        except OutOfWork:  # pragma: no cover - partition catches it; reaching here is the bug
            pytest.fail("the work allowance escaped the partitioner")
        assert tree.allowance is not None and tree.work <= tree.allowance
    chunks = chunk_file(lang, text, FileContext(path, "pkg", BUDGET))
    tiles(text, chunks, BUDGET)
    deep = [c for c in chunks if c.start_line > 3 * MAX_DEPTH and c.end_line < len(Lines.of(text).lines) // 2]
    assert all(c.breadcrumb.endswith(("[fallback-split]", "[byte-split]")) for c in deep)


@pytest.mark.parametrize(
    ("lang", "path", "line"),
    [
        ("python", "data.py", "TABLE = [" + ", ".join(str(i) for i in range(60_000)) + "]\n"),
        ("json", "data.json", '{"values": [' + ",".join(f'"v{i}"' for i in range(300_000)) + "]}"),
        ("rust", "gen.rs", "const T: [u32; 60000] = [" + ",".join(str(i) for i in range(60_000)) + "];"),
    ],
)
def test_a_single_enormous_line_is_cut_into_marked_pieces(
    lang: str, path: str, line: str, tiles: Tiles
) -> None:
    chunks = chunk_file(lang, line, FileContext(path, "pkg", BUDGET))
    tiles(line, chunks, BUDGET)
    assert {(c.start_line, c.end_line) for c in chunks} == {(1, 1)}
    assert all(c.breadcrumb.endswith(":[byte-split]") for c in chunks)


def test_a_5mb_config_file_splits_between_elements_within_the_allowance(tiles: Tiles) -> None:
    entry = '    {{ "packageName": "@example/p{0}", "projectFolder": "libraries/p{0}" }}'
    text = '{\n  "projects": [\n' + ",\n".join(entry.format(i) for i in range(70_000)) + "\n  ]\n}\n"
    assert len(text) > 5_000_000
    chunks = chunk_file("json", text, FileContext("rush.json", "repo", BUDGET))
    tiles(text, chunks, BUDGET)
    assert not [c for c in chunks if c.breadcrumb.endswith("]")]  # no fallback: the allowance held
    assert {c.symbol_name for c in chunks[1:-1]} == {"projects"}


@pytest.mark.parametrize("lang", sorted(BRACES))
def test_invalid_syntax_and_binary_junk_tile(lang: str, tiles: Tiles) -> None:
    junk = "".join(f"{{ ( [ ] ) }} }} ) fn class \x00 \r\n\t'\"`{i} #if\n" for i in range(3_000))
    chunks = chunk_file(lang, junk, FileContext(BRACES[lang][0], "pkg", BUDGET))
    tiles(junk, chunks, BUDGET)


@pytest.mark.parametrize(
    "text",
    [
        "".join(f"{' ' * i}k{i}:\n" for i in range(255)) + " " * 255 + "v\n",  # mappings
        "- " * 255 + "v\n",  # a sequence of sequences on one line
        "".join(f"{'  ' * i}- \n" for i in range(300)),
    ],
)
def test_yaml_nested_past_the_grammar_s_limit_is_not_parsed(text: str, tiles: Tiles) -> None:
    """tree-sitter-yaml 0.7 crashed the process (SIGSEGV) on each of these: a child process
    chunks them, so a crash fails this test instead of killing the test run."""
    code = (
        "import sys; from monodex.indexer.chunkers import chunk_file; "
        "from monodex.indexer.chunkers.base import FileContext; "
        "c = chunk_file('yaml', sys.stdin.read(), FileContext('a.yml', '', 802)); "
        "print(len(c), all(x.breadcrumb.endswith(('[fallback-split]', '[byte-split]')) for x in c))"
    )
    run = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-500:]
    assert run.stdout.split()[1] == "True"
    tiles(text, chunk_file("yaml", text, FileContext("a.yml", "", BUDGET)), BUDGET)


def test_a_name_too_big_to_be_a_name_is_not_read(tiles: Tiles) -> None:
    """`impl Foo<...20 KB...>`: every chunk inside would read the whole type to name its owner
    (quadratic in a big file); such an owner is dropped and the methods keep their own names."""
    huge = "Foo<" + ", ".join(f"[u8; {i}]" for i in range(2_000)) + ">"
    methods = "".join(
        f"    fn method_{i}(&self) -> usize {{\n        {i} + self.len()\n    }}\n\n" for i in range(40)
    )
    text = f"impl {huge} {{\n{methods}}}\n"
    chunks = chunk_file("rust", text, FileContext("src/lib.rs", "crate", BUDGET))
    tiles(text, chunks, BUDGET)
    named = [c.symbol_name for c in chunks if c.symbol_name]
    assert named and all(s.startswith("method_") for s in named), named
