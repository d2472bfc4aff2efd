"""Every chunker tiles any text exactly, and only an unsplittable single line exceeds the budget."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from monodex.indexer.chunkers import chunk_file
from monodex.indexer.chunkers.base import CHUNK_KINDS, Chunk, FileContext
from monodex.indexer.chunkers.lines import Lines, split_lines

PATHS = {"typescript": "src/a.ts", "markdown": "docs/a.md", "lineBased": "config/a.yaml"}
# Characters str.splitlines() would break on, mixed into ordinary text: they must not shift lines.
ODD = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\r"
LINE = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=80),
    st.text(st.sampled_from("abc {}();=`'\"/*#-~ \t" + ODD), max_size=40),
    st.sampled_from(["", "  ", "# Title", "```", "~~~", "class A {", "}", "import x from 'y';", "x" * 900]),
)


def assert_tiles(text: str, chunks: list[Chunk], budget: int) -> None:
    assert "".join(c.text for c in chunks) == text
    line = 1
    for c in chunks:
        assert c.start_line == line and c.end_line >= c.start_line
        assert c.end_line - c.start_line + 1 == len(split_lines(c.text))
        assert c.text.strip(), "no whitespace-only chunk"
        assert c.chunk_kind in CHUNK_KINDS
        if len(c.text.encode("utf-8", "surrogatepass")) > budget:
            # Only a single unsplittable line may exceed the budget, or whitespace-only lines that
            # had to join a full neighbour.
            solid = [ln for ln in split_lines(c.text) if ln.strip()]
            assert len(solid) == 1 or len("".join(solid).encode("utf-8", "surrogatepass")) <= budget
        line = c.end_line + 1
    assert line - 1 == len(split_lines(text))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(LINE, max_size=60),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    strategy=st.sampled_from(sorted(PATHS)),
    budget=st.sampled_from([60, 200, 802, 6000]),
)
def test_every_chunker_tiles_any_text(
    lines: list[str], crlf: bool, final_newline: bool, strategy: str, budget: int
) -> None:
    sep = "\r\n" if crlf else "\n"
    text = sep.join(lines) + (sep if final_newline and lines else "")
    chunks = chunk_file(strategy, text, FileContext(PATHS[strategy], "@scope/pkg", budget))
    if text.strip():
        assert_tiles(text, chunks, budget)
    else:
        assert chunks == []


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.sampled_from(sorted(PATHS)))
def test_any_string_at_all_including_surrogates(text: str, strategy: str) -> None:
    chunks = chunk_file(strategy, text, FileContext(PATHS[strategy], "", 100))
    assert "".join(c.text for c in chunks) == (text if text.strip() else "")


def test_lines_split_on_newline_only_and_measure_bytes() -> None:
    text = "a\u2028b\x0bc\r\nd\x85\n\n€"
    lines = Lines.of(text)
    assert lines.lines == ["a\u2028b\x0bc\r\n", "d\x85\n", "\n", "€"]
    assert lines.size(0, 3) == len(text.encode()) and lines.size(3, 3) == 3
