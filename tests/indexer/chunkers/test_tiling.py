"""Every chunker tiles any text exactly, and no chunk exceeds the budget (long lines are cut)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from monodex.indexer.chunkers import chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.lines import Lines

Tiles = Callable[[str, list[Chunk], int], None]

PATHS = {"typescript": "src/a.ts", "markdown": "docs/a.md", "lineBased": "config/a.yaml"}
# Characters str.splitlines() would break on, mixed into ordinary text: they must not shift lines.
ODD = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\r"
LINE = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=80),
    st.text(st.sampled_from("abc {}();=`'\"/*#-~ \t" + ODD), max_size=40),
    st.sampled_from(["", "  ", "# Title", "```", "~~~", "class A {", "}", "import x from 'y';", "x" * 900]),
    # Lines longer than every budget but the largest: 1-4 byte characters, CRs, runs of spaces.
    st.text(st.sampled_from("aé€𝄞 \t\r{}"), min_size=100, max_size=2500),
    st.builds(lambda n, c: c * n, st.integers(100, 7000), st.sampled_from(["x", " ", "€", "𝄞", "\r"])),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(LINE, max_size=60),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    strategy=st.sampled_from(sorted(PATHS)),
    budget=st.sampled_from([60, 200, 802, 6000]),
)
def test_every_chunker_tiles_any_text(
    tiles: Tiles, lines: list[str], crlf: bool, final_newline: bool, strategy: str, budget: int
) -> None:
    sep = "\r\n" if crlf else "\n"
    text = sep.join(lines) + (sep if final_newline and lines else "")
    chunks = chunk_file(strategy, text, FileContext(PATHS[strategy], "@scope/pkg", budget))
    if text.strip():
        tiles(text, chunks, budget)
    else:
        assert chunks == []


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=300), st.sampled_from(sorted(PATHS)))
def test_any_string_at_all_including_surrogates(tiles: Tiles, text: str, strategy: str) -> None:
    chunks = chunk_file(strategy, text, FileContext(PATHS[strategy], "", 40))
    if text.strip():
        tiles(text, chunks, 40)  # 40 bytes: most of these strings have a line to cut
    else:
        assert chunks == []


def test_lines_split_on_newline_only_and_measure_bytes() -> None:
    text = "a\u2028b\x0bc\r\nd\x85\n\n€"
    lines = Lines.of(text)
    assert lines.lines == ["a\u2028b\x0bc\r\n", "d\x85\n", "\n", "€"]
    assert lines.size(0, 3) == len(text.encode()) and lines.size(3, 3) == 3
