"""Issue 35: `verify`, `gc`, `labels rm` and `labels --containing` use where you stand as search,
view and crawl do (flags > where you stand > `monodex use`), and doctor's next step runs from
wherever the user is."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from monodex.disk import paths
from monodex.front.mcp import build
from monodex.main import main
from tests.commands.test_across import COLORS, RETRY
from tests.commands.test_across import branches as branches  # the fixture


def test_verify_gc_and_labels_rm_take_the_catalog_from_where_you_stand(  # type: ignore[no-untyped-def]
    crawl_files, run_json, monkeypatch
) -> None:
    repo = crawl_files({"src/a.py": "def alpha():\n    return 1\n"})  # no 'monodex use' default
    monkeypatch.chdir(repo.path / "src")
    code, out, err = run_json("verify", "--branch", "HEAD", "--json")
    assert code == 0, err
    assert [(r["catalog"], r["label"], r["ok"]) for r in out["labels"]] == [("acme", "main", True)]
    code, out, err = run_json("gc", "--dry-run", "--json")
    assert code == 0 and out["dry_run"] is True, err
    code, _, err = run_json("labels", "rm")
    assert code == 2 and "--branch HEAD" in err  # it deletes: the label is named, never defaulted
    code, out, err = run_json("labels", "rm", "--branch", "HEAD", "--json")
    assert code == 0 and (out["catalog"], out["label"]) == ("acme", "main"), err
    assert run_json("labels", "--json")[1]["labels"] == []


def _containing(target: str, worktree: str) -> Any:
    async def go() -> Any:
        async with Client(build(paths.resolve())) as client:
            return await client.call_tool("labels_containing", {"target": target, "worktree": worktree})

    return anyio.run(go)


def test_labels_containing_means_the_version_checked_out_where_you_stand(  # type: ignore[no-untyped-def]
    branches, run_json, monkeypatch
) -> None:
    monkeypatch.chdir(branches.path)
    branches.git("checkout", "-q", "feature/retry")
    code, out, err = run_json("labels", "--containing", RETRY, "--json")  # two versions of it exist
    assert code == 0, err
    assert out["labels"] == ["feature/retry"]
    answer = _containing(RETRY, str(branches.path))  # MCP: the same, standing in that worktree
    assert not answer.is_error and answer.structured_content["labels"] == ["feature/retry"]
    branches.git("checkout", "-q", "main")
    code, out, err = run_json("labels", "--containing", RETRY, "--json")
    assert code == 0 and out["labels"] == ["feature/backoff", "feature/no-colors", "main"], err
    code, out, err = run_json("labels", "--containing", RETRY, "--label", "feature/retry", "--json")
    assert code == 0 and out["labels"] == ["feature/retry"], err  # the flag wins
    branches.git("checkout", "-q", "feature/no-colors")
    code, out, err = run_json("labels", "--containing", COLORS, "--json")  # not here: the only version
    assert code == 0 and out["labels"] == ["feature/backoff", "feature/retry", "main"], err


def test_doctors_next_step_runs_from_outside_the_repository(  # type: ignore[no-untyped-def]
    monorepo, run_json, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no checkout here: nothing stands in for --label
    code, found, err = run_json("doctor", "--json")
    hints = {c["check"]: c["hint"] for c in found["checks"]}
    for check in ("history acme", "index"):
        command = shlex.split(hints[check].rpartition(": ")[2] if ": " in hints[check] else hints[check])
        assert command[:2] == ["monodex", "crawl"], hints[check]
        assert main([*command[1:], "--no-wait-dense"]) == 0, hints[check]
    assert [r["label"] for r in run_json("labels", "--json")[1]["labels"]] == ["main"]
