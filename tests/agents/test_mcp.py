"""`monodex mcp` driven by the SDK's own client over stdio, against a crawled real repository."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from monodex.indexer.embed.spec import default_spec
from tokenizers import Tokenizer

from monodex.front import render
from monodex.main import main

RETRY_TS = """/** Calls an HTTP endpoint again after a failure, waiting twice as long each time. */
export async function callWithBackoff(url: string, tries: number = 4): Promise<Response> {
  let waitMs: number = 50;
  for (let attempt: number = 1; ; attempt++) {
    try {
      return await fetch(url);
    } catch (error) {
      if (attempt >= tries) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      waitMs *= 2;
    }
  }
}
"""


def _colors(n: int) -> str:
    return "".join(
        f"/** Prints text number {n}-{i} in color {i} on a terminal with ANSI codes. */\n"
        f"export function paint{n}x{i}(text: string): string {{\n  return `\\u001b[3{i % 8}m${{text}}\\u001b[39m`;\n}}\n\n"
        for i in range(12)
    )


@pytest.fixture
def repo(git_repo, capsys):  # type: ignore[no-untyped-def]
    r = git_repo(
        {
            "package.json": '{"name": "root"}',
            "libraries/net/package.json": '{"name": "@acme/net"}',
            "libraries/net/src/retry.ts": RETRY_TS,
            "libraries/term/package.json": '{"name": "@acme/term"}',
            "libraries/term/src/paint.ts": _colors(1),
            "README.md": "# Acme\n\nTools for networking and terminals.\n",
        },
        name="acme",
    )
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    capsys.readouterr()
    return r


def server() -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=["-m", "monodex", "mcp"], env=dict(os.environ))


def call(*calls: tuple[str, dict[str, Any]], timeout: float = 120) -> list[Any]:
    async def go() -> list[Any]:
        async with Client(server(), read_timeout_seconds=timeout) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_tools_and_their_schemas_are_listed(repo) -> None:  # type: ignore[no-untyped-def]
    async def go() -> Any:
        async with Client(server(), read_timeout_seconds=120) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(go).tools}
    assert set(tools) == {"search", "view", "labels", "status", "diff", "labels_containing"}
    props = tools["search"].input_schema["properties"]
    assert {
        "query",
        "catalog",
        "label",
        "limit",
        "path_prefix",
        "package",
        "kind",
        "max_tokens",
        "wait_for_fresh",
    } <= set(props)
    assert tools["search"].input_schema["required"] == ["query"]
    assert "freshness" in tools["search"].output_schema["properties"]
    assert "view" in tools["search"].description and "search" in tools["view"].description
    assert tools["view"].output_schema["properties"]["text"]
    assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())


def test_search_view_labels_status_answer_with_structure_and_text(repo) -> None:  # type: ignore[no-untyped-def]
    found, by_package, labels, status = call(
        ("search", {"query": "retry an HTTP request with exponential backoff", "limit": 3}),
        ("search", {"query": "retry", "package": "@acme/term", "kind": "content"}),
        ("labels", {}),
        ("status", {}),
    )
    assert not found.is_error
    s = found.structured_content
    assert s["catalog"] == "acme" and s["label"] == "main"  # from `monodex use`
    assert s["results"][0]["relative_path"] == "libraries/net/src/retry.ts"
    assert s["freshness"]["fresh"] is True and s["freshness"]["indexed_commit"] == repo.head()
    assert "callWithBackoff" in found.content[0].text and "fresh with branch main" in found.content[0].text
    assert {r["package_name"] for r in by_package.structured_content["results"]} == {"@acme/term"}
    assert [(r["catalog"], r["label"]) for r in labels.structured_content["labels"]] == [("acme", "main")]
    assert status.structured_content["runner"]["running"] is False
    assert status.structured_content["labels"][0]["freshness"] == "fresh"

    fid = s["results"][0]["file_id"]
    whole, part, by_path = call(
        ("view", {"file_id": fid}),
        ("view", {"file_id": fid, "chunks": "1"}),
        ("view", {"path": "libraries/term/src/paint.ts", "chunks": "2-end"}),
    )
    assert whole.structured_content["text"] == RETRY_TS
    assert part.structured_content["chunks"][0]["chunk_ordinal"] == 1
    text = (repo.path / "libraries/term/src/paint.ts").read_text()
    chunks = by_path.structured_content["chunks"]
    assert chunks[0]["chunk_ordinal"] == 2 and text.endswith(by_path.structured_content["text"])


def test_errors_are_tool_errors_with_a_next_step(repo) -> None:  # type: ignore[no-untyped-def]
    unknown_label, bad_catalog, bad_id, both, bad_kind, after = call(
        ("search", {"query": "retry", "label": "nope"}),
        ("search", {"query": "retry", "catalog": "Bad Name!"}),
        ("view", {"file_id": "xyz"}),
        ("view", {}),
        ("search", {"query": "retry", "kind": "tests"}),
        ("labels", {}),  # the server is still up
    )
    assert unknown_label.is_error and "not indexed" in unknown_label.content[0].text
    assert "Next step:" in unknown_label.content[0].text
    assert bad_catalog.is_error and "catalog" in bad_catalog.content[0].text.lower()
    assert bad_id.is_error and "invalid file_id" in bad_id.content[0].text
    assert both.is_error and "exactly one of file_id and path" in both.content[0].text
    assert bad_kind.is_error
    assert not after.is_error


def test_every_tool_error_has_one_shape(repo) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: errors from a tool's body began "Error executing tool search: ", those from its
    arguments did not. Every one is now `problem` then `Next step: hint`, as an is_error result,
    whichever tool and whichever stage found it (an unknown tool too)."""
    answers = call(
        ("search", {"query": "retry", "label": "nope"}),  # the tool's body
        ("search", {"query": "retry", "catalog": "Bad Name!"}),
        ("view", {"file_id": "xyz"}),
        ("view", {}),
        ("labels", {"catalog": "nope"}),
        ("diff", {"from_label": "main", "to_label": "nope"}),
        ("labels_containing", {"target": "nope.ts:3"}),
        ("search", {"query": "retry", "kind": "tests"}),  # the arguments
        ("search", {"query": "retry", "top_k": 3}),
        ("serch", {"query": "retry"}),  # no such tool
    )
    for answer in answers:
        assert answer.is_error and len(answer.content) == 1, answer
        problem, _, hint = answer.content[0].text.partition("\nNext step: ")
        assert problem and hint and "\n" not in problem, answer.content[0].text
        assert "Error executing tool" not in answer.content[0].text
    assert answers[-1].content[0].text.startswith("no tool named 'serch'")
    assert "did you mean search?" in answers[-1].content[0].text


def test_a_crashing_tool_answers_in_the_same_shape_without_its_text(repo) -> None:  # type: ignore[no-untyped-def]
    """A crash (not a MonodexError) keeps its text on the server, as the SDK does, but reads
    like every other tool error."""
    from monodex.disk import paths
    from monodex.front.mcp import build

    server = build(paths.resolve())

    def boom() -> str:
        raise RuntimeError("secret internals")

    server.add_tool(boom, name="boom")
    answer = anyio.run(server.call_tool, "boom", {})
    text = answer.content[0].text
    assert answer.is_error and text.startswith("boom failed unexpectedly (RuntimeError)"), text
    assert "\nNext step: " in text and "secret internals" not in text


def test_the_text_answer_shows_each_hits_breadcrumb(repo) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: the CLI shows a hit's breadcrumb (package:File.ts:Symbol); MCP's text did not."""
    (found,) = call(("search", {"query": "retry an HTTP request with exponential backoff", "limit": 3}))
    hits = found.structured_content["results"]
    assert hits and all(h["breadcrumb"] for h in hits)
    first = found.content[0].text.split("\n\n")[1].splitlines()[0]
    assert first.startswith("libraries/net/src/retry.ts:") and "%40acme/net:retry.ts" not in first
    assert "@acme/net:retry.ts:callWithBackoff" in first, first
    for h in hits:
        assert render.crumb(h["breadcrumb"]) in found.content[0].text


def test_bad_arguments_read_like_the_clis_errors_and_unknown_ones_are_rejected(repo) -> None:  # type: ignore[no-untyped-def]
    low, typed, choice, missing, unknown, typo, after = (
        r.content[0].text
        for r in call(
            ("search", {"query": "retry", "limit": 0}),
            ("search", {"query": "retry", "limit": "many"}),
            ("search", {"query": "retry", "mode": "fast"}),
            ("search", {"limit": 3}),
            ("search", {"query": "retry", "top_k": 3}),
            ("view", {"file": "libraries/net/src/retry.ts"}),
            ("labels", {}),
        )
    )
    for text in (low, typed, choice, missing, unknown, typo):
        assert "Next step:" in text and "pydantic" not in text and "http" not in text, text
        assert "validation error" not in text, text
    assert low.startswith("invalid limit 0: input should be greater than or equal to 1")
    assert typed.startswith("invalid limit 'many'") and "fix limit" in typed
    assert choice.startswith("invalid mode 'fast'") and "'hybrid', 'dense' or 'lexical'" in choice
    assert missing.startswith("query is required") and "pass query" in missing
    assert unknown.startswith("search has no argument 'top_k'") and "query, catalog, label, limit" in unknown
    assert typo.startswith("view has no argument 'file'") and "did you mean file_id?" in typo
    assert "acme:main" in after  # the server answers on


def test_the_schemas_say_no_other_arguments(repo) -> None:  # type: ignore[no-untyped-def]
    async def go() -> Any:
        async with Client(server(), read_timeout_seconds=120) as client:
            return await client.list_tools()

    assert all(t.input_schema.get("additionalProperties") is False for t in anyio.run(go).tools)


def _tokens(text: str) -> int:
    tok = Tokenizer.from_file(str(default_spec().tokenizer_path))
    tok.no_truncation()
    tok.no_padding()
    return len(tok.encode(text, add_special_tokens=False).ids)


@pytest.mark.parametrize("max_tokens", [30, 150, 600])
def test_budget_packing_never_exceeds_max_tokens(repo, max_tokens) -> None:  # type: ignore[no-untyped-def]
    query = {"query": "print colored text on a terminal", "limit": 12}
    plain, found = call(
        ("search", {**query, "max_tokens": None}), ("search", {**query, "max_tokens": max_tokens})
    )
    assert "budget" not in plain.structured_content or plain.structured_content["budget"] is None
    s = found.structured_content
    spent = [
        _tokens(f"{b['relative_path']}:{b['start_line']}-{b['end_line']}\n{b['text']}") for b in s["results"]
    ]
    assert sum(spent) <= max_tokens and sum(spent) == s["budget"]["used_tokens"]
    hits = len(plain.structured_content["results"])
    assert sum(len(b["chunk_ordinals"]) for b in s["results"]) + len(s["budget"]["omitted"]) == hits
    if s["results"]:
        assert f"{s['budget']['used_tokens']} of {max_tokens} tokens" in found.content[0].text
    else:  # the top hit's first line does not fit, and nothing ranked lower takes its place
        assert f"nothing fits in {max_tokens} tokens" in found.content[0].text
    if max_tokens == 30:
        assert s["budget"]["omitted"]


@pytest.fixture
def runner(repo, start_runner) -> Any:  # type: ignore[no-untyped-def]
    # An hour between drains: only a search asking for freshness can make this runner refresh.
    return start_runner(3600)


def test_freshness_with_the_runner_up_and_wait_for_fresh(repo, runner) -> None:  # type: ignore[no-untyped-def]
    first = repo.head()
    query = {"query": "decompress a gzip stream", "limit": 3}
    (before,) = call(("search", query))
    assert before.structured_content["freshness"]["fresh"] is True
    repo.write(
        "libraries/net/src/gzip.ts",
        "/** Inflates a gzip stream. */\nexport function inflateGzip(): void {}\n",
    )
    second = repo.commit("gzip")
    stale, waited, status = call(
        ("search", query), ("search", {**query, "wait_for_fresh": 120}), ("status", {})
    )
    f = stale.structured_content["freshness"]
    assert (f["indexed_commit"], f["branch_commit"], f["fresh"], f["refresh_pending"]) == (
        first,
        second,
        False,
        False,
    )
    assert "STALE" in stale.content[0].text
    w = waited.structured_content
    assert w["freshness"]["wait"]["reached"] is True and w["freshness"]["fresh"] is True
    assert w["freshness"]["indexed_commit"] == second
    assert w["results"][0]["relative_path"] == "libraries/net/src/gzip.ts"
    assert status.structured_content["runner"]["running"] is True
    assert status.structured_content["labels"][0]["freshness"] == "fresh"


def test_wait_for_fresh_says_when_its_bound_is_hit(repo, runner) -> None:  # type: ignore[no-untyped-def]
    for i in range(30):  # over a hundred new chunks: seconds of embedding, far beyond the bound
        repo.write(f"libraries/term/src/more{i}.ts", _colors(100 + i))
    head = repo.commit("many files")
    # Phase one (searchable) takes a fraction of a second; the vectors are what takes seconds.
    (hurried,) = call(("search", {"query": "paint text", "wait_for_fresh": 0.5, "wait_for_dense": True}))
    f = hurried.structured_content["freshness"]
    assert f["wait"]["reached"] is False and f["wait"]["dense_reached"] is False
    assert f["branch_commit"] == head and 0.5 <= f["wait"]["waited_seconds"] < 30
    if f["indexed_commit"] == head:  # phase one made it within the bound: the vectors did not
        assert hurried.structured_content["dense_coverage"] < 1.0
    assert "waited" in hurried.content[0].text
    # the client waits as long as the bound it asks for: on a loaded machine the vectors take minutes
    (patient,) = call(
        ("search", {"query": "paint text", "wait_for_fresh": 600, "wait_for_dense": True}), timeout=660
    )
    assert patient.structured_content["freshness"]["wait"]["reached"] is True
    assert patient.structured_content["freshness"]["indexed_commit"] == head
    assert patient.structured_content["dense_coverage"] == 1.0


def test_path_prefix_as_a_string_mcp_words_in_errors_and_a_version(repo) -> None:  # type: ignore[no-untyped-def]
    from monodex import __version__

    async def go() -> tuple[Any, list[Any]]:
        async with Client(server(), read_timeout_seconds=120) as client:
            calls = [
                ("search", {"query": "retry", "path_prefix": "libraries/net"}),
                ("view", {"file_id": "xyz"}),
                ("view", {"path": "libraries/net/src/retry.ts", "chunks": "2-1"}),
            ]
            return client.server_info, [await client.call_tool(n, a) for n, a in calls]

    info, (by_string, bad_id, bad_range) = anyio.run(go)
    assert info is not None and info.version == __version__
    assert not by_string.is_error, by_string.content[0].text
    found = {r["relative_path"] for r in by_string.structured_content["results"]}
    assert "libraries/net/src/retry.ts" in found and all(p.startswith("libraries/net/") for p in found)
    for answer, word in ((bad_id, "file_id"), (bad_range, "chunks")):
        text = answer.content[0].text
        assert answer.is_error and word in text and "--id" not in text, text


def test_the_cli_only_options_now_reach_agents_and_errors_use_their_names(repo) -> None:  # type: ignore[no-untyped-def]
    """lang, per_file and explain were CLI-only (issue 13); a bad path named the CLI's --path."""
    by_lang, explained, per_file, bad_path, no_lang = call(
        ("search", {"query": "networking and terminals", "lang": "Markdown"}),
        ("search", {"query": "retry with backoff", "explain": True, "max_tokens": None}),
        ("search", {"query": "color", "per_file": 3, "max_tokens": None, "path_prefix": "libraries/term"}),
        ("search", {"query": "retry", "path_prefix": "../outside"}),
        ("search", {"query": "retry", "lang": "python"}),  # found by the indexer, not the request
    )
    assert {r["relative_path"] for r in by_lang.structured_content["results"]} == {"README.md"}
    first = explained.structured_content["results"][0]
    assert first["explain"]["mode"] == "hybrid" and first["explain"]["fused_rank"] == 1
    colors = [r for r in per_file.structured_content["results"] if r["relative_path"].endswith("paint.ts")]
    assert len(colors) == 3  # one file, three of its chunks (its package.json may follow)
    text = bad_path.content[0].text
    assert bad_path.is_error and "path_prefix" in text and "--path" not in text, text
    text = no_lang.content[0].text
    assert no_lang.is_error and "pass lang with one of those" in text and "--lang" not in text, text


def test_an_agent_sees_its_own_uncommitted_edits(repo) -> None:  # type: ignore[no-untyped-def]
    edited = RETRY_TS.replace("callWithBackoff", "callWithJitteredBackoff")
    (repo.path / "libraries/net/src/retry.ts").write_text(edited)
    worktree = str(repo.path)
    mine, committed = call(
        ("search", {"query": "callWithJitteredBackoff retry", "mode": "lexical", "worktree": worktree}),
        (
            "search",
            {"query": "callWithBackoff retry", "mode": "lexical", "worktree": worktree, "committed": True},
        ),
    )
    hit = mine.structured_content["results"][0]
    assert hit["relative_path"] == "libraries/net/src/retry.ts" and "callWithJitteredBackoff" in hit["text"]
    assert mine.structured_content["freshness"]["overlay"]["files"] == 1
    assert "uncommitted files of" in mine.content[0].text
    assert "callWithBackoff(" in committed.structured_content["results"][0]["text"]
    (viewed,) = call(("view", {"file_id": hit["file_id"]}))
    assert viewed.structured_content["text"] == edited
