"""Issue 21: an MCP server answers for where its working directory stands (a linked worktree and
its branch), through the SDK's own client over stdio."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from monodex.main import main

PARSER_TS = (
    "/** Parses a YAML manifest of a rocket launch into a flight plan. */\n"
    "export function parseLaunchManifest(yaml: string): string[] {\n  return yaml.split('\\n');\n}\n"
)


def call(cwd: Path, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "monodex", "mcp"], env=dict(os.environ), cwd=str(cwd)
    )

    async def go() -> list[Any]:
        async with Client(server, read_timeout_seconds=120) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(go)


def test_the_server_defaults_to_the_worktree_it_runs_in(git_repo, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"package.json": '{"name": "root"}', "src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    wt = tmp_path / "agent-wt"
    repo.git("worktree", "add", "-q", str(wt), "-b", "agent/task-1")
    (wt / "src" / "parser.ts").write_text(PARSER_TS)
    subprocess.run(["git", "add", "-A"], cwd=wt, check=True)
    subprocess.run(["git", "commit", "-qm", "parser"], cwd=wt, check=True)
    capsys.readouterr()
    query = {"query": "parse the rocket launch manifest"}
    here, main_tree = call(wt / "src", ("search", query), ("search", {**query, "worktree": str(repo.path)}))
    assert not here.is_error, here.content
    found = here.structured_content
    assert found["label"] == "agent/task-1"
    assert (
        found["freshness"]["worktree"] == str(wt.resolve()) and found["freshness"]["branch"] == "agent/task-1"
    )
    assert "src/parser.ts" in [r["relative_path"] for r in found["results"]]
    assert "indexed on demand" in here.content[0].text
    assert main_tree.structured_content["label"] == "main"
    assert "src/parser.ts" not in [r["relative_path"] for r in main_tree.structured_content["results"]]
