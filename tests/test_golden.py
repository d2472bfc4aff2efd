"""Every command's `--json` answer and every MCP tool's structured answer on one small real
repository, compared with the golden answers under tests/golden/ (DESIGN.md: the `--json` shapes
are an interface). Only what changes from run to run is normalised: times, durations, process
ids, the temp folders' paths and sizes on disk; key order, key presence and every other value
are compared as printed.

When an answer changes on purpose (a key added, ranking changed), regenerate the files and read
their diff: `MONODEX_GOLDEN=update ./dev test tests/test_golden.py`."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from monodex.disk import paths
from monodex.front.mcp import build
from monodex.main import main
from tests.commands.conftest import MONOREPO

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("MONODEX_GOLDEN") == "update"
# Keys whose values differ on every run (clocks, durations, pids, bytes a shard takes on disk).
VOLATILE = {
    "seconds",
    "waited_seconds",
    "compact_seconds",
    "optimize_seconds",
    "uptime_seconds",
    "oldest_age_seconds",
    "updated_at_unix_secs",
    "created_at",
    "started_at",
    "finished_at",
    "pid",
    "bytes",
    "interpreter",
}
# A base's membership key ends in the time it was made (points/membership.py): acme:main@<commit>.<stamp>
BASE_STAMP = re.compile(r"(@[0-9a-f]{12}\.)[0-9a-f]{16}")
QUESTIONS = [
    {"query": "retry a request with exponential backoff", "relevant": ["libraries/net/src/retry.ts"]},
    {"query": "print colored text on a terminal", "relevant": ["libraries/terminal/src/colors.ts"]},
]
SEARCH = ("search", "--catalog", "acme", "--label", "main", "--text", "load the configuration file")


def normalised(value: Any, tmp: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {
            k: (f"<{k}>" if _volatile(k) and v is not None else normalised(v, tmp)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [normalised(v, tmp) for v in value]
    if isinstance(value, str):
        for folder, name in tmp.items():
            value = value.replace(folder, name)
        return BASE_STAMP.sub(r"\1<stamp>", value)
    return value


def _volatile(key: str) -> bool:
    return key in VOLATILE or key.endswith("_seconds")


class Answers:
    """Each answer normalised, then compared with (or, updating, written to) its golden file."""

    def __init__(self, tmp: Path, env: Path, capsys: pytest.CaptureFixture[str]) -> None:
        # the test's own folders first: the folder of every test's folders holds them
        self.tmp = {str(tmp): "<tmp>", str(env): "<env>", str(tmp.parent): "<temp>"}
        self.capsys = capsys
        self.differ: list[str] = []

    def check(self, name: str, answer: Any, *, volatile: bool = True) -> Any:
        shown = normalised(answer, self.tmp) if volatile else answer
        text = json.dumps(shown, indent=1, ensure_ascii=False) + "\n"
        golden = GOLDEN / f"{name}.json"
        if UPDATE:
            GOLDEN.mkdir(exist_ok=True)
            golden.write_text(text)
        elif not golden.is_file() or golden.read_text() != text:
            self.differ.append(name)
            (GOLDEN / f"{name}.actual").write_text(text)  # to diff by hand; never committed
        return answer

    def cli(self, name: str, *argv: str, code: int = 0) -> Any:
        self.capsys.readouterr()
        assert main([*argv, "--json"]) == code, self.capsys.readouterr().err
        out = self.capsys.readouterr().out
        assert out.count("\n") == 1, out  # one JSON document on one line
        return self.check(name, json.loads(out))

    def tools(self, name: str) -> Any:
        """Each MCP tool's description and input and output schemas (the shapes clients read)."""

        async def go() -> Any:
            async with Client(build(paths.resolve())) as client:
                return await client.list_tools()

        listed = anyio.run(go).tools
        return self.check(
            name, [t.model_dump(mode="json", exclude_none=True) for t in listed], volatile=False
        )

    def mcp(self, name: str, tool: str, args: dict[str, Any]) -> Any:
        async def go() -> Any:
            async with Client(build(paths.resolve())) as client:
                return await client.call_tool(tool, args)

        result = anyio.run(go)
        assert not result.is_error, result.content
        return self.check(name, result.structured_content)


@pytest.fixture
def acme(git_repo, monkeypatch, tmp_path):  # type: ignore[no-untyped-def]
    """MONOREPO on main, and a branch feature/retry that changes retry.ts and adds a file; the
    dates pinned so every commit id is the same on every run."""
    for var in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(var, "2026-01-02T03:04:05Z")
    repo = git_repo(MONOREPO, name="acme")
    repo.git("checkout", "-q", "-b", "feature/retry")
    retry = (repo.path / "libraries/net/src/retry.ts").read_text()
    repo.write("libraries/net/src/retry.ts", retry.replace("delayMs *= 2", "delayMs *= 3"))
    repo.write(
        "libraries/net/src/jitter.ts", "/** Random jitter for retry delays. */\nexport const jitter = 0.1;\n"
    )
    repo.commit("Retry with a larger backoff factor and jitter")
    repo.git("checkout", "-q", "main")
    monkeypatch.chdir(repo.path)
    return repo


def test_every_answer_is_the_golden_one(acme, tmp_path, isolated_env, capsys) -> None:  # type: ignore[no-untyped-def]
    a = Answers(tmp_path, isolated_env, capsys)
    a.cli("catalog-add", "catalog", "add", "acme", str(acme.path))
    a.cli("catalog-list", "catalog", "list")
    a.cli("catalog-track", "catalog", "track", "acme", "feature/*")
    a.cli("catalog-untrack", "catalog", "untrack", "acme", "feature/*")
    a.cli("use-set", "use", "--catalog", "acme", "--label", "main")
    a.cli("use-show", "use")
    a.cli("crawl-dry-run", "crawl", "--catalog", "acme", "--label", "main", "--dry-run")
    a.cli("crawl-dry-run-files", "crawl", "--catalog", "acme", "--label", "main", "--dry-run", "--files")
    a.cli("crawl", "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")
    a.cli("crawl-again", "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")
    a.cli(
        "crawl-branch", "crawl", "--catalog", "acme", "--branch", "feature/retry", "--commit", "feature/retry"
    )

    found = a.cli("search", *SEARCH)
    a.cli("search-explain", *SEARCH, "--explain", "--per-file", "2")
    a.cli("search-budget", *SEARCH, "--max-tokens", "300")
    a.cli("search-tiny-budget", *SEARCH, "--max-tokens", "1")
    a.cli("search-filters", *SEARCH, "--path", "libraries", "--lang", "ts", "--kind", "content")
    a.cli("search-lexical", *SEARCH, "--mode", "lexical", "--limit", "3")
    a.cli("search-fresh", *SEARCH, "--fresh", "5", "--wait-dense")
    a.cli("search-all-labels", "search", "--all-labels", "--text", "retry with backoff")
    a.cli("search-labels", "search", "--labels", "feature/*", "--text", "retry with backoff")
    a.cli("search-here", "search", "retry with backoff")  # where you stand: the checkout's label
    acme.write("libraries/net/src/retry.ts", "export const retries = 5;\n")
    a.cli("search-overlay", "search", "how many retries")
    a.cli("search-committed", "search", "how many retries", "--committed")
    acme.git("checkout", "--", ".")

    top = found["results"][0]
    a.cli("view-id", "view", "--id", top["file_id"])
    a.cli("view-selection", "view", "--id", f"{top['file_id']}:1-2")
    a.cli("view-path", "view", "--path", "libraries/net/src/retry.ts", "--chunks", "1")
    a.cli("labels", "labels")
    a.cli("labels-containing-path", "labels", "--containing", "libraries/net/src/retry.ts")
    a.cli("labels-containing-chunk", "labels", "--containing", f"{top['file_id']}:1")
    a.cli("diff", "diff", "--from", "main", "--to", "feature/retry")
    a.cli("diff-text", "diff", "--from", "main", "--to", "feature/retry", "--text", "backoff factor")
    questions = acme.path.parent / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    a.cli("eval", "eval", "--questions", str(questions), "--per-query")
    a.cli("chunk", "chunk", "libraries/net/src/retry.ts")
    a.cli("verify", "verify")
    a.cli("status", "status")

    a.tools("mcp-tools")
    a.mcp("mcp-search", "search", {"query": "load the configuration file"})
    a.mcp("mcp-search-labels", "search", {"query": "retry with backoff", "all_labels": True, "limit": 3})
    a.mcp("mcp-view", "view", {"file_id": top["file_id"], "chunks": "1"})
    a.mcp("mcp-labels", "labels", {})
    a.mcp("mcp-diff", "diff", {"from_label": "main", "to_label": "feature/retry"})
    a.mcp("mcp-labels-containing", "labels_containing", {"target": "libraries/net/src/retry.ts"})
    a.mcp("mcp-status", "status", {})

    a.cli("gc-dry-run", "gc", "--dry-run")
    a.cli("gc", "gc", "--compact")
    a.cli("gc-old-models", "gc", "--old-models", "--dry-run")
    a.cli("hooks-install", "hooks", "install", "--repo", str(acme.path))
    a.cli("hooks-uninstall", "hooks", "uninstall", "--repo", str(acme.path))
    a.cli("runner-install-service", "runner", "install-service")
    a.cli("runner-uninstall-service", "runner", "uninstall-service")
    a.cli("labels-rm", "labels", "rm", "--branch", "feature/retry")
    a.cli("catalog-rm", "catalog", "rm", "acme", "--purge")
    assert not a.differ, f"answers differ from tests/golden/ (see the .actual files): {a.differ}"


def test_through_the_runner_the_answers_are_the_golden_ones(  # type: ignore[no-untyped-def]
    acme, tmp_path, isolated_env, capsys, start_runner
) -> None:
    """The same answers when the runner serves them over its socket (marshalled there, read here)."""
    a = Answers(tmp_path, isolated_env, capsys)
    assert main(["catalog", "add", "acme", str(acme.path)]) == 0
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    branch = ("--branch", "feature/retry", "--commit", "feature/retry")
    assert main(["crawl", "--catalog", "acme", *branch, "--json"]) == 0
    start_runner(3600)
    found = a.cli("search", *SEARCH)
    a.cli("search-explain", *SEARCH, "--explain", "--per-file", "2")
    a.cli("search-budget", *SEARCH, "--max-tokens", "300")
    a.cli("search-all-labels", "search", "--all-labels", "--text", "retry with backoff")
    top = found["results"][0]
    a.cli("view-id", "view", "--id", top["file_id"])
    a.cli("labels-containing-path", "labels", "--containing", "libraries/net/src/retry.ts")
    a.cli("diff-text", "diff", "--from", "main", "--to", "feature/retry", "--text", "backoff factor")
    a.mcp("mcp-view", "view", {"file_id": top["file_id"], "chunks": "1"})
    a.mcp("mcp-diff", "diff", {"from_label": "main", "to_label": "feature/retry"})
    assert not a.differ, f"answers differ from tests/golden/ (see the .actual files): {a.differ}"
