"""The CLI and the MCP server expose the same options, derived from one request type each."""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any

import anyio
import pytest
from mcp import Client

from monodex import requests as rq
from monodex.disk import paths
from monodex.front.mcp import NAMES, build
from monodex.main import build_parser

# CLI-only presentation: --branch is another way to say --label, a search's bare TEXT another --text
SHARED = {"json", "help", "branch", "verbose", "question"}


def _cli_options(command: str) -> set[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {a.dest for a in sub.choices[command]._actions} - SHARED


def _mcp_options(tool: str) -> set[str]:
    async def go() -> Any:
        async with Client(build(paths.resolve())) as client:
            return await client.list_tools()

    tools = {t.name: t for t in anyio.run(go).tools}
    reverse = {v: k for k, v in NAMES.items()}
    return {reverse.get(name, name) for name in tools[tool].input_schema["properties"]}


@pytest.mark.parametrize(
    ("command", "tool", "kind"),
    [
        ("search", "search", rq.SearchRequest),
        ("view", "view", rq.ViewRequest),
        ("diff", "diff", rq.DiffRequest),
    ],
)
def test_cli_and_mcp_expose_every_field_of_the_request(command: str, tool: str, kind: type[Any]) -> None:
    fields = {f.name for f in dataclasses.fields(kind)}
    assert _cli_options(command) == fields
    assert _mcp_options(tool) == fields


def test_labels_containing_has_every_field_in_the_cli_and_mcp() -> None:
    fields = {f.name for f in dataclasses.fields(rq.ContainingRequest)}
    assert fields == {"catalog", "target", "label", "worktree"}
    assert {"catalog", "containing", "label", "worktree"} <= _cli_options("labels")
    assert _mcp_options("labels_containing") == fields


def _enum(schema: Any) -> list[str] | None:
    if isinstance(schema, dict):
        if "enum" in schema:
            return list(schema["enum"])
        for v in schema.values():
            found = _enum(v)
            if found is not None:
                return found
    elif isinstance(schema, list):
        for v in schema:
            found = _enum(v)
            if found is not None:
                return found
    return None


def test_the_choices_of_kind_and_mode_are_the_requests_everywhere() -> None:
    """MCP spells the choices as Literal types (its schema needs them): they must stay the request's."""

    async def go() -> Any:
        async with Client(build(paths.resolve())) as client:
            return await client.list_tools()

    props = {t.name: t for t in anyio.run(go).tools}["search"].input_schema["properties"]
    assert _enum(props["kind"]) == list(rq.KINDS) and _enum(props["mode"]) == list(rq.MODES)
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    choices = {a.dest: a.choices for a in sub.choices["search"]._actions if a.choices}
    assert tuple(choices["kind"]) == rq.KINDS and tuple(choices["mode"]) == rq.MODES
