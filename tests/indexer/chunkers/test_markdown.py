"""Markdown sections: strict headings outside fences, preamble kept, tiny sections merged."""

from __future__ import annotations

from monodex.indexer.chunkers import budget_for, chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import Slugger, enc, slug

BUDGET = budget_for(256)


def md(text: str, path: str = "docs/guide.md", budget: int = BUDGET) -> list[Chunk]:
    chunks = chunk_file("markdown", text, FileContext(path, "docs", budget))
    assert "".join(c.text for c in chunks) == (text if text.strip() else "")
    return chunks


def para(words: int, tag: str = "") -> str:
    return f"{tag} " + "Run the installer and follow the prompts. " * words + "\n\n"


def test_preamble_is_kept_as_its_own_chunk_when_large() -> None:
    text = "Intro " + para(8) + "# Guide\n\n" + para(8)
    first, second = md(text)
    assert (
        first.text.startswith("Intro") and first.symbol_name is None and first.breadcrumb == "docs:guide.md"
    )
    assert second.symbol_name == "Guide" and second.breadcrumb == "docs:guide.md:guide"


def test_tiny_preamble_and_sections_merge_with_neighbours() -> None:
    text = "Badge.\n\n# Guide\n\nShort.\n\n## Install\n\n" + para(9) + "## Usage\n\n" + "# Next\n\n" + para(9)
    chunks = md(text)
    assert [(c.symbol_name, c.breadcrumb) for c in chunks] == [
        ("Guide", "docs:guide.md:guide"),
        ("Usage", "docs:guide.md:guide/usage"),
    ]
    assert chunks[0].text.startswith("Badge.") and "## Install" in chunks[0].text
    assert chunks[1].text.startswith("## Usage") and "# Next" in chunks[1].text
    assert all(c.chunk_type == "markdown-section" and c.chunk_kind == "content" for c in chunks)


def test_a_tiny_last_section_joins_the_one_before() -> None:
    chunks = md("# A\n\n" + para(9) + "# B\n\n" + para(9) + "## Tiny\n\nEnd.\n")
    assert [c.symbol_name for c in chunks] == ["A", "B"] and chunks[-1].text.endswith("End.\n")


def test_headings_inside_backtick_and_tilde_fences_do_not_count() -> None:
    text = (
        "# Build\n\n" + para(10) + "~~~bash\n# not a heading\n```\n# still code\n~~~\n\n"
        "````\n```\n# nested\n```\n````\n\n#hashtag is not a heading\n## C#\n\n" + para(10)
    )
    chunks = md(text)
    assert [c.symbol_name for c in chunks] == ["Build", "C#"]
    assert chunks[1].breadcrumb == "docs:guide.md:build/c"


def test_strict_atx_headings() -> None:
    text = "    # indented code\n#5 not a heading\n####### seven\n###### Six ######\n" + para(5)
    chunks = md(text, budget=250)  # the 51-byte preamble is above the minimum (50): kept apart
    assert [c.symbol_name for c in chunks] == [None, "Six"]


def test_duplicate_headings_get_numbered_slugs_in_the_hierarchy() -> None:
    text = "".join(f"# Platform {p}\n\n## Install\n\n" + para(6) for p in ("Linux", "Mac"))
    text += "# Platform Linux\n\n" + para(6)
    chunks = md(text, budget=300)
    assert [c.breadcrumb.removeprefix("docs:guide.md:") for c in chunks] == [
        "platform-linux",
        "platform-mac",
        "platform-linux-1",
    ]
    # Each tiny platform heading went forward, with its "Install" subsection.
    assert all(c.text.startswith("# Platform") for c in chunks)
    assert [c.breadcrumb for c in md(text, budget=80)][1] == "docs:guide.md:platform-linux/install"


def test_oversized_section_splits_at_blank_lines_not_inside_code() -> None:
    code = "```ts\n" + "".join(f"const value{i} = {i};\n\n" for i in range(8)) + "```\n\n"
    paras = "".join(f"Paragraph {i} " + "word " * 30 + "\n\n" for i in range(12))
    text = "# Big\n\n" + paras + code + paras
    chunks = md(text, budget=400)
    assert len(chunks) > 4 and all(len(c.text.encode()) <= 400 for c in chunks)
    assert all(c.symbol_name == "Big" for c in chunks)
    for c in chunks[1:]:
        assert c.text.startswith("\n") or c.text.startswith("```"), repr(c.text[:30])


def test_a_single_long_line_is_cut_into_pieces_and_blank_files_are_empty() -> None:
    text = "# T\n\n" + "x" * 7000 + "\n"
    chunks = md(text, budget=6000)
    assert [(c.start_line, c.end_line, len(c.text)) for c in chunks] == [
        (1, 2, 5),
        (3, 3, 3500),
        (3, 3, 3501),
    ]
    assert [c.breadcrumb for c in chunks] == ["docs:guide.md:t"] + ["docs:guide.md:t:[byte-split]"] * 2
    assert {c.symbol_name for c in chunks} == {"T"}
    assert md("") == [] and md("\n\n  \n") == []


def test_changelog_kind() -> None:
    chunks = md("# Change Log\n\n## 1.0.0\n\n- fix\n", path="libraries/x/CHANGELOG.md")
    assert {c.chunk_kind for c in chunks} == {"changelog"}


def test_slugs_and_encoding() -> None:
    s = Slugger()
    assert [s("API: Configuration"), s("API: Configuration"), s("Multiple   Spaces")] == [
        "api-configuration",
        "api-configuration-1",
        "multiple---spaces",
    ]
    assert slug("Use `rush install` (fast!)") == "use-rush-install-fast"
    assert slug("See [the docs](https://x.io/a)") == "see-the-docs"
    assert enc("@rushstack/a:b c=d+e#f%g\u00a0\x01") == "%40rushstack/a%3Ab%20c%3Dd%2Be%23f%25g%C2%A0%01"
