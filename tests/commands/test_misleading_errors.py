"""Issue 35: an error names the problem the user has, not the one the code met next."""

from __future__ import annotations

from typing import Any

import anyio
from mcp import Client

from monodex.disk import paths
from monodex.front.mcp import build

SRC = {"src/login.py": "def login(user):\n    return user\n"}


def _mcp_search(**args: Any) -> Any:
    async def go() -> Any:
        async with Client(build(paths.resolve())) as client:
            return await client.call_tool("search", {"query": "login", **args})

    return anyio.run(go)


def test_an_unknown_catalog_is_named_with_the_registered_ones(crawl_files, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files(SRC)
    monkeypatch.chdir(repo.path)  # standing in acme: the label would come from here for acme only
    code, _, err = run_json("search", "--catalog", "nope", "login")
    assert code == 2 and "no --label given" not in err, err
    assert "unknown catalog 'nope' (registered: acme)" in err and "monodex catalog add nope" in err
    answer = _mcp_search(catalog="nope")  # the MCP server says the same
    assert answer.is_error and "unknown catalog 'nope' (registered: acme)" in answer.content[0].text


def test_a_branch_nobody_has_is_an_error_with_the_close_names(crawl_files, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files(SRC)
    repo.git("branch", "feature/login")
    monkeypatch.chdir(repo.path)
    code, _, err = run_json("search", "--branch", "feature/logn", "login")
    assert code == 2, err
    assert "no branch 'feature/logn' in catalog 'acme'" in err and "did you mean feature/login?" in err
    assert "crawl" not in err  # never a crawl of HEAD under a name no branch has
    code, _, err = run_json("crawl", "--branch", "nosuchbranch", "--commit", "HEAD")
    assert code == 2 and "no branch 'nosuchbranch'" in err, err
    assert [r["label"] for r in run_json("labels", "--json")[1]["labels"]] == ["main"]
    code, _, err = run_json("search", "--branch", "feature/login", "--fresh", "--text", "login")
    assert code == 0, err  # a branch that exists, with no label yet: indexed on demand
