from __future__ import annotations

import argparse
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from monodex.indexer.chunkers import budget_for, chunk_file, chunker_id
from monodex.indexer.chunkers.base import CHUNK_KINDS, Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import Slugger, enc

from monodex.commands import chunk as chunk_cmd
from monodex.errors import UsageError

BUDGET = budget_for(256)


def ctx(path: str = "src/JsonFile.ts", package: str = "@scope/pkg", budget: int = BUDGET) -> FileContext:
    return FileContext(relative_path=path, package_name=package, budget=budget)


def assert_tiles(text: str, chunks: list[Chunk]) -> None:
    assert "".join(c.text for c in chunks) == text
    line = 1
    for c in chunks:
        assert c.start_line == line and c.end_line >= c.start_line
        assert c.end_line - c.start_line + 1 == len(c.text.split("\n")) - (1 if c.text.endswith("\n") else 0)
        assert c.chunk_kind in CHUNK_KINDS
        line = c.end_line + 1


LINE = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=120)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(LINE, max_size=80),
    crlf=st.booleans(),
    final_newline=st.booleans(),
    strategy=st.sampled_from(["typescript", "markdown", "lineBased"]),
    budget=st.sampled_from([60, 200, 802]),
)
def test_every_chunker_tiles_any_text(
    lines: list[str], crlf: bool, final_newline: bool, strategy: str, budget: int
) -> None:
    sep = "\r\n" if crlf else "\n"
    text = sep.join(lines) + (sep if final_newline and lines else "")
    path = {"typescript": "a.ts", "markdown": "a.md", "lineBased": "a.yaml"}[strategy]
    chunks = chunk_file(strategy, text, ctx(path, budget=budget))
    if not text.strip():
        assert chunks == []
    else:
        assert_tiles(text, chunks)


def _class(n_methods: int, body_lines: int = 6) -> str:
    methods = "\n".join(
        f"  /** Does step {i}. */\n  public step{i}(input: string): string {{\n"
        + "".join(
            f"    const v{j}: string = input.replace('{j}', 'value-{i}-{j}');\n" for j in range(body_lines)
        )
        + "    return input;\n  }\n"
        for i in range(n_methods)
    )
    return f"import {{ readFileSync }} from 'fs';\nimport * as path from 'path';\n\nexport class JsonFile {{\n{methods}}}\n"


@given(st.integers(min_value=1, max_value=25), st.integers(min_value=1, max_value=12))
@settings(max_examples=30, deadline=None)
def test_generated_classes_split_at_methods_with_qualified_symbols(n: int, body: int) -> None:
    text = _class(n, body)
    chunks = chunk_file("typescript", text, ctx())
    assert_tiles(text, chunks)
    for c in chunks:
        assert len(c.text.encode()) <= BUDGET or c.start_line == c.end_line
        assert ":[fallback-split]" not in c.breadcrumb
    if len(text.encode()) > BUDGET:
        assert len(chunks) > 1
    for c in chunks:
        if c.text.count("public step") == 1 and "class JsonFile" not in c.text:
            assert c.symbol_name is not None and c.symbol_name.startswith("JsonFile.step"), c


def test_breadcrumb_encodes_scope_and_qualifies_methods() -> None:
    chunks = chunk_file("typescript", _class(12), ctx("libraries/x/src/JsonFile.ts"))
    method = next(c for c in chunks if c.symbol_name == "JsonFile.step5")
    assert method.breadcrumb == "%40scope/pkg:JsonFile.ts:JsonFile.step5"
    assert method.chunk_type == "function"


def test_small_file_is_one_chunk_and_const_gets_its_name() -> None:
    text = "export const answer: number = 42;\n"
    (c,) = chunk_file("typescript", text, ctx())
    assert (c.symbol_name, c.chunk_type, c.chunk_kind) == ("answer", "variable", "content")


def test_leading_imports_chunk_is_kind_imports() -> None:
    imports = "".join(f"import {{ thing{i} }} from './module-with-a-long-name-{i}';\n" for i in range(20))
    text = imports + "\n" + _class(6)
    chunks = chunk_file("typescript", text, ctx())
    assert chunks[0].chunk_kind == "imports"
    assert {c.chunk_kind for c in chunks[1:]} == {"content"}


def test_template_literal_falls_back_to_line_split_and_is_marked() -> None:
    body = "".join(f"  line {i} of a long generated template with some words in it\n" for i in range(200))
    text = f"export const template: string = `\n{body}`;\n"
    chunks = chunk_file("typescript", text, ctx())
    assert_tiles(text, chunks)
    assert len(chunks) > 2 and all(c.breadcrumb.endswith(":[fallback-split]") for c in chunks)
    assert all(len(c.text.encode()) <= BUDGET for c in chunks)


def test_one_huge_line_stays_one_oversized_chunk() -> None:
    text = "export const data = [" + ", ".join(str(i) for i in range(2000)) + "];"
    (c,) = chunk_file("typescript", text, ctx())
    assert c.text == text and len(text) > BUDGET


def test_lopsided_split_is_marked_degraded() -> None:
    # The only AST boundary leaves a tiny first half: the body is one template literal.
    big = "".join(f"    a fairly long line {j} of generated text in a template\n" for j in range(40))
    text = f"export function tiny(): number {{\n  return 1;\n}}\nexport function big(): string {{\n  return `\n{big}`;\n}}\n"
    chunks = chunk_file("typescript", text, ctx(budget=1600))
    assert_tiles(text, chunks)
    assert any(c.breadcrumb.endswith(":[degraded-ast-split]") for c in chunks)


def test_chunk_kinds_from_file_names() -> None:
    assert {c.chunk_kind for c in chunk_file("markdown", "# 1.0\n\n- fix\n", ctx("CHANGELOG.md"))} == {
        "changelog"
    }
    assert {c.chunk_kind for c in chunk_file("lineBased", "a: 1\n", ctx("config/rush.yaml"))} == {"config"}
    assert {c.chunk_kind for c in chunk_file("lineBased", "body { }\n", ctx("src/a.css"))} == {"content"}


def test_markdown_keeps_preamble_merges_tiny_sections_and_respects_fences() -> None:
    text = (
        "Intro paragraph before any heading.\n\n# Guide\n\nShort.\n\n## Install\n\n"
        + "Run the installer and follow the prompts on screen. " * 20
        + "\n\n"
        "```bash\n# not a heading\nrush install\n```\n\n## Install\n\nAgain.\n"
    )
    chunks = chunk_file("markdown", text, ctx("docs/guide.md", package="docs"))
    assert_tiles(text, chunks)
    assert chunks[0].text.startswith("Intro paragraph")
    assert all(c.chunk_type == "markdown-section" for c in chunks)
    assert not any(c.symbol_name == "not a heading" for c in chunks)
    crumbs = [c.breadcrumb for c in chunks]
    assert any(b.endswith(":guide/install") for b in crumbs)
    # The preamble and the tiny "Guide" section did not become chunks of their own.
    assert "# Guide" in chunks[0].text and "Short." in chunks[0].text


def test_markdown_splits_oversized_sections_at_blank_lines() -> None:
    paras = "\n\n".join("Paragraph %d " % i + "word " * 60 for i in range(12))
    text = "# Big\n\n" + paras + "\n"
    chunks = chunk_file("markdown", text, ctx("a.md"))
    assert_tiles(text, chunks)
    assert len(chunks) > 3 and all(len(c.text.encode()) <= BUDGET for c in chunks)


def test_slugs_and_encoding() -> None:
    s = Slugger()
    assert [s("API: Configuration"), s("API: Configuration"), s("Multiple   Spaces")] == [
        "api-configuration",
        "api-configuration-1",
        "multiple---spaces",
    ]
    assert enc("@rushstack/a:b c=d") == "%40rushstack/a%3Ab%20c%3Dd"


def test_budget_and_chunker_id_follow_the_token_limit() -> None:
    assert 780 <= budget_for(256) <= 900 and budget_for(8192) == 6000
    assert chunker_id("typescript", 802) != chunker_id("typescript", 6000)
    assert chunker_id("markdown", 802) != chunker_id("typescript", 802)
    with pytest.raises(UsageError):
        chunk_file("cobol", "x", ctx())


def test_chunk_command_prints_json_and_rejects_binary(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "package.json").write_text(json.dumps({"name": "@scope/pkg"}))
    f = tmp_path / "JsonFile.ts"
    f.write_text(_class(10))
    args = argparse.Namespace(path=str(f), strategy=None, max_tokens=256, package=None, json=True)
    assert chunk_cmd.run(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["strategy"] == "typescript" and out["chunks"][0]["breadcrumb"].startswith(
        "%40scope/pkg:JsonFile.ts"
    )
    assert "".join(c["text"] for c in out["chunks"]) == f.read_text()
    (tmp_path / "bin.ts").write_bytes(b"\x00\x01")
    with pytest.raises(UsageError):
        chunk_cmd.run(
            argparse.Namespace(
                path=str(tmp_path / "bin.ts"), strategy=None, max_tokens=256, package="", json=True
            )
        )
