"""The TypeScript partitioner: AST splits, markers, qualified symbols, breadcrumbs and kinds."""

from __future__ import annotations

import time
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st
from monodex.indexer.chunkers import budget_for, chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext

BUDGET = budget_for(256)


def ts(text: str, path: str = "libraries/pkg/src/JsonFile.ts", budget: int = BUDGET) -> list[Chunk]:
    chunks = chunk_file("typescript", text, FileContext(path, "@scope/pkg", budget))
    assert "".join(c.text for c in chunks) == (text if text.strip() else "")
    return chunks


def size(c: Chunk) -> int:
    return len(c.text.encode())


def klass(n_methods: int, body_lines: int = 6) -> str:
    methods = "\n".join(
        f"  /** Does step {i}. */\n  public step{i}(input: string): string {{\n"
        + "".join(
            f"    const v{j}: string = input.replace('{j}', 'value-{i}-{j}');\n" for j in range(body_lines)
        )
        + "    return input;\n  }\n"
        for i in range(n_methods)
    )
    return f"import {{ readFileSync }} from 'fs';\n\nexport class JsonFile {{\n{methods}}}\n"


@given(st.integers(min_value=1, max_value=25), st.integers(min_value=1, max_value=10))
@settings(max_examples=30, deadline=None)
def test_classes_split_between_methods_with_qualified_symbols(n: int, body: int) -> None:
    chunks = ts(klass(n, body))
    assert all(size(c) <= BUDGET and ":[" not in c.breadcrumb for c in chunks)
    assert (len(chunks) > 1) == (len(klass(n, body).encode()) > BUDGET)
    for c in chunks:
        if c.text.count("public step") == 1 and "class JsonFile" not in c.text:
            assert c.symbol_name is not None and c.symbol_name.startswith("JsonFile.step"), c
            assert c.chunk_type == "function"


def test_a_method_chunk_starts_with_its_doc_comment_and_has_a_full_breadcrumb() -> None:
    method = next(c for c in ts(klass(12)) if c.symbol_name == "JsonFile.step5")
    assert method.breadcrumb == "%40scope/pkg:JsonFile.ts:JsonFile.step5"
    assert method.text.lstrip().startswith("/** Does step 5. */")


def test_big_interface_splits_at_members_and_qualifies_properties() -> None:
    props = "".join(
        f"  /**\n   * The {i}th option, which controls an important thing.\n   */\n  option{i}?: number;\n\n"
        for i in range(40)
    )
    chunks = ts(f"export interface IOptions {{\n  timeout: number;\n{props}}}\n", budget=150)
    assert len(chunks) > 20 and all(size(c) <= 150 for c in chunks)
    assert all(c.chunk_type in ("interface", "field") for c in chunks)
    assert {c.symbol_name for c in chunks if c.chunk_type == "field"} >= {"IOptions.option39"}
    assert not any(":[" in c.breadcrumb for c in chunks)


def test_huge_object_literal_splits_between_pairs_without_fallback() -> None:
    pairs = "".join(f"  key{i}: 'v{i}',\n" for i in range(600))
    chunks = ts(f"export const table = {{\n{pairs}}};\n")
    assert len(chunks) > 5 and all(size(c) <= BUDGET for c in chunks)
    assert not any(":[" in c.breadcrumb for c in chunks)
    assert all(c.symbol_name == "table" and c.chunk_type == "variable" for c in chunks)


def test_object_members_are_qualified_by_the_object() -> None:
    handlers = "".join(
        f"  on{i}: (event: Event): void => {{\n" + "    console.log(event.type, 'handled');\n" * 12 + "  },\n"
        for i in range(6)
    )
    chunks = ts(f"export const handlers = {{\n{handlers}}};\n")
    assert "handlers.on3" in {c.symbol_name for c in chunks}
    assert next(c for c in chunks if c.symbol_name == "handlers.on3").chunk_type == "function"


def test_namespace_qualifies_its_functions() -> None:
    body = "    return `${a}`;\n" * 40
    text = f"export namespace Paths {{\n  export function join(a: string): string {{\n{body}  }}\n}}\n"
    chunks = ts(text, budget=400)
    symbols = [c.symbol_name for c in chunks]
    assert symbols[0] == "Paths" and set(symbols[1:]) == {"Paths.join"}


def test_two_hundred_line_template_literal_falls_back_and_is_marked() -> None:
    body = "".join(f"  line {i} of a long generated template with some words in it\n" for i in range(200))
    chunks = ts(f"export const template: string = `\n{body}`;\n")
    assert len(chunks) > 2 and all(c.breadcrumb.endswith(":[fallback-split]") for c in chunks)
    assert all(size(c) <= BUDGET and c.chunk_kind == "content" for c in chunks)
    assert chunks[0].breadcrumb == "%40scope/pkg:JsonFile.ts:template:[fallback-split]"


def test_one_long_line_is_cut_into_pieces_of_that_line() -> None:
    text = "export const data = [" + ", ".join(str(i) for i in range(2000)) + "];"
    chunks = ts(text)
    assert len(chunks) == -(-len(text) // BUDGET) and all(size(c) <= BUDGET for c in chunks)
    assert {(c.start_line, c.end_line) for c in chunks} == {(1, 1)}
    assert {c.breadcrumb for c in chunks} == {"%40scope/pkg:JsonFile.ts:data:[byte-split]"}


def test_lopsided_split_is_marked_degraded() -> None:
    big = "".join(f"    a fairly long line {j} of generated text in a template\n" for j in range(40))
    text = (
        "export function tiny(): number {\n  return 1;\n}\n"
        f"export function big(): string {{\n  return `\n{big}`;\n}}\n"
    )
    chunks = ts(text, budget=1600)
    assert chunks[0].breadcrumb == "%40scope/pkg:JsonFile.ts:tiny:[degraded-ast-split]"
    assert chunks[0].text.startswith("export function tiny") and chunks[0].end_line == 3


def test_small_file_is_one_chunk_and_const_gets_its_name() -> None:
    (c,) = ts("export const answer: number = 42;\n")
    assert (c.symbol_name, c.chunk_type, c.chunk_kind) == ("answer", "variable", "content")
    assert c.breadcrumb == "%40scope/pkg:JsonFile.ts:answer"


def test_several_declarations_in_one_chunk_are_code_without_symbol() -> None:
    (c,) = ts("const a = 1;\nconst b = 2;\n", path="x.ts")
    assert (c.chunk_type, c.symbol_name, c.breadcrumb) == ("code", None, "%40scope/pkg:x.ts")


def test_leading_import_block_is_its_own_kind() -> None:
    imports = "".join(f"import {{ thing{i} }} from './module-with-a-long-name-{i}';\n" for i in range(8))
    text = "// Copyright header\n" + imports + "\n" + klass(6)
    chunks = ts(text)
    kinds = [c.chunk_kind for c in chunks]
    assert kinds[0] == "imports" and set(kinds[1:]) == {"content"}
    assert "import" in chunks[0].text and "class" not in chunks[0].text


def test_empty_and_blank_files_have_no_chunks() -> None:
    assert ts("") == [] and ts(" \n\r\n\t\n") == []


def test_syntax_errors_still_tile_and_split() -> None:
    broken = "".join(f"function f{i}( {{ let x = ;;; }} }} ) @@\n" for i in range(200))
    chunks = ts(broken)
    assert len(chunks) > 5 and all(size(c) <= BUDGET for c in chunks)


def test_tsx_uses_the_tsx_grammar(ts_sources: dict[str, str]) -> None:
    chunks = ts(ts_sources["ParameterForm.tsx"], path="src/ParameterForm.tsx")
    assert len(chunks) > 5 and not any(":[" in c.breadcrumb for c in chunks)
    assert {c.symbol_name for c in chunks[2:]} == {"ParameterForm"}


def test_realistic_files(ts_sources: dict[str, str]) -> None:
    for name, text in ts_sources.items():
        assert 10_000 <= len(text.encode()) <= 30_000, name
        for budget in (BUDGET, 6000):
            chunks = ts(text, path=f"src/{name}", budget=budget)
            sizes = [size(c) for c in chunks]
            assert max(sizes) <= budget and min(sizes) >= budget // 5, (name, budget, sizes)
            assert chunks[0].chunk_kind == "imports" or budget == 6000 or name != "JsonFile.ts"
            assert not any(":[" in c.breadcrumb for c in chunks), name
    symbols = {c.symbol_name for c in ts(ts_sources["JsonFile.ts"])}
    assert {"JsonFile.loadPath0", "JsonFile._formatPath", "IJsonFileSaveOptions", "JsonSyntax"} <= symbols


def test_chunking_is_linear_enough(make_json_file: Callable[[int], str]) -> None:
    text = make_json_file(300)  # ~270 KB
    started = time.perf_counter()
    chunks = ts(text, path="Big.ts")
    assert len(chunks) > 300 and time.perf_counter() - started < 2.0
