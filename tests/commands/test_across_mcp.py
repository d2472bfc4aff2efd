"""Questions across branches (issue 24) through the MCP tools and through the runner's socket:
the same repository and labels as test_across.py, the same answers and the CLI's error texts."""

from __future__ import annotations

import os
import sys
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.commands.test_across import BACKOFF, COLORS, CONFIG, LABELS, RETRY
from tests.commands.test_across import branches as branches  # the fixture


def _call(*calls: tuple[str, dict[str, Any]]) -> list[Any]:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "monodex", "mcp"], env=dict(os.environ)
    )

    async def go() -> list[Any]:
        async with Client(server, read_timeout_seconds=120) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_mcp_answers_the_three_questions(branches) -> None:  # type: ignore[no-untyped-def]
    found, globbed, changed, ranked, where, bad_glob, bad_label = _call(
        ("search", {"query": "load and parse the JSON configuration file", "all_labels": True, "limit": 3}),
        ("search", {"query": "colorize text", "labels": "feature/r*", "max_tokens": None}),
        ("diff", {"from_label": "main", "to_label": "feature/retry"}),
        (
            "diff",
            {"from_label": "feature/no-colors", "to_label": "feature/backoff", "query": "terminal colors"},
        ),
        ("labels_containing", {"target": CONFIG}),
        ("search", {"query": "x", "labels": ["release/*"]}),
        ("diff", {"from_label": "main", "to_label": "Main"}),
    )
    for answer in (found, globbed, changed, ranked, where):
        assert not answer.is_error, answer.content[0].text
    s = found.structured_content
    assert s["label"] is None and sorted(s["freshness_by_label"]) == LABELS
    hit = next(r for r in s["results"] if r["relative_path"] == CONFIG)
    assert hit["labels"] == LABELS
    assert "in: feature/backoff, feature/no-colors, feature/retry, main" in found.content[0].text
    assert {r["relative_path"]: r["labels"] for r in globbed.structured_content["results"]}[COLORS] == [
        "feature/retry"
    ]

    d = changed.structured_content
    assert d["from"] == "main" and [(f["path"], f["change"]) for f in d["files"]] == [(RETRY, "changed")]
    assert "M libraries/net/src/retry.ts" in changed.content[0].text
    r = ranked.structured_content
    assert r["files"][0]["path"] == COLORS and r["files"][0]["change"] == "added"  # back on backoff
    assert {f["path"] for f in r["files"]} <= {COLORS, BACKOFF}
    assert where.structured_content["labels"] == LABELS

    assert bad_glob.is_error and "no label of catalog 'acme' matches 'release/*'" in bad_glob.content[0].text
    assert bad_label.is_error and "invalid label name 'Main'" in bad_label.content[0].text


def test_across_questions_through_the_runner(branches, start_runner, run_json) -> None:  # type: ignore[no-untyped-def]
    """The runner answers over its socket what the CLI answered locally."""
    _, local_diff, _ = run_json("diff", "--from", "main", "--to", "feature/no-colors", "--json")
    _, local_where, _ = run_json("labels", "--containing", RETRY, "--label", "main", "--json")
    start_runner(3600)
    code, out, err = run_json("search", "--all-labels", "--text", "retry with exponential backoff", "--json")
    assert code == 0, err
    retry = [r for r in out["results"] if r["relative_path"] == RETRY]
    assert sorted(len(r["labels"]) for r in retry) == [1, 3]
    code, out, err = run_json("diff", "--from", "main", "--to", "feature/no-colors", "--json")
    assert code == 0 and out == local_diff, err
    code, out, err = run_json("labels", "--containing", RETRY, "--label", "main", "--json")
    assert code == 0 and out == local_where, err
    code, _, err = run_json("labels", "--containing", RETRY)
    assert code == 2 and "pass --label" in err  # a FieldError-free UsageError crosses the socket whole
