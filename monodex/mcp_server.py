"""`monodex mcp`: the index as Model Context Protocol tools over stdio, for AI coding agents.

Built on the official `mcp` SDK. Each tool runs the same operation as the CLI: through the
runner's socket when it is up (warm model, shard owned there), else in this process with a model
kept warm here and the shard opened only for the call, so a runner can start at any time.
Failures come back as tool errors carrying the CLI's "problem + next step" text.
"""

from __future__ import annotations

import re
import threading
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from monodex import __version__, config, context, rpc
from monodex.errors import MonodexError
from monodex.paths import Paths

INSTRUCTIONS = """monodex is a semantic index of a git monorepo (TypeScript, Markdown), kept up to date
with its branches. Use `search` to find where something is implemented or explained when you do
not know the file; use `view` to read a file (or some of its chunks) once you know it. Every
answer says which commit it reflects and whether the branch has moved since (`freshness`)."""

DEFAULT_MAX_TOKENS = 4000
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # the CLI contract may add keys; none are dropped


class Wait(_Open):
    seconds: float
    reached: bool = Field(description="true when the label reflects the branch's current commit")
    waited_seconds: float


class Freshness(_Open):
    indexed_commit: str | None = Field(description="the commit the label's index reflects")
    complete: bool = Field(description="false while a refresh of the label is in progress")
    source_kind: str
    branch: str | None = Field(description="the branch the label tracks, when one maps to it")
    branch_commit: str | None = Field(description="that branch's current commit")
    fresh: bool | None = Field(description="indexed_commit == branch_commit; null without a branch")
    refresh_pending: bool = Field(description="a refresh is queued or running")
    refresh_error: str | None = None
    wait: Wait | None = None


class Hit(_Open):
    score: float
    file_id: str = Field(description="pass to `view` to read the file")
    chunk_ordinal: int
    chunk_count: int
    relative_path: str
    start_line: int
    end_line: int
    package_name: str | None
    breadcrumb: str | None
    symbol_name: str | None
    chunk_kind: str
    text: str
    chunk_ordinals: list[int] | None = Field(None, description="chunks merged into this block")
    tokens: int | None = None
    truncated: bool | None = Field(None, description="the block was cut at a line to fit max_tokens")


class Omitted(_Open):
    relative_path: str
    start_line: int
    end_line: int
    score: float
    file_id: str
    tokens: int


class Budget(_Open):
    max_tokens: int
    used_tokens: int
    hits_packed: int
    truncated: int
    omitted: list[Omitted] = Field(description="hits left out for lack of room, best first")


class SearchAnswer(_Open):
    catalog: str
    label: str
    mode: str = Field(description="the mode used (hybrid falls back to dense on an old index)")
    results: list[Hit]
    freshness: Freshness
    budget: Budget | None = None


class ViewChunk(_Open):
    chunk_ordinal: int
    chunk_count: int
    start_line: int
    end_line: int
    breadcrumb: str | None
    symbol_name: str | None
    chunk_kind: str
    text: str


class ViewAnswer(_Open):
    catalog: str
    label: str
    file_id: str
    relative_path: str
    package_name: str | None
    chunks: list[ViewChunk]
    text: str = Field(description="the selected chunks joined: the whole file when none is selected")


class LabelRow(_Open):
    catalog: str
    label: str
    commit_oid: str
    source_kind: str
    crawl_complete: bool
    updated_at_unix_secs: int
    chunks: int


class LabelsAnswer(_Open):
    labels: list[LabelRow]


class StatusAnswer(_Open):
    runner: dict[str, Any]
    spool: dict[str, Any]
    labels: list[dict[str, Any]]
    jobs: dict[str, Any]


class Backend:
    """Runs an operation through the runner, or here with a model kept warm between calls."""

    def __init__(self, paths: Paths) -> None:
        self.paths = paths
        self._lock = threading.Lock()
        self._engine: Any = None
        self._embedder: Any = None

    def run(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        answer = rpc.call(self.paths, op, args)
        if answer is not None:
            return answer
        from monodex.indexer import ops
        from monodex.indexer.session import Session
        from monodex.indexer.session import engine as open_engine

        with self._lock:  # one local shard open at a time: it is an exclusive lock
            cfg = config.load(self.paths)
            if self._engine is None or self._embedder != cfg.embedder:
                self._engine, self._embedder = open_engine(cfg), cfg.embedder
            with Session(cfg, self.paths, engine=self._engine) as s:
                return ops.run(s, op, args)


def _tool_error(exc: MonodexError) -> ToolError:
    return ToolError(exc.problem + (f"\nNext step: {exc.hint}" if exc.hint else ""))


_FILE_ID = re.compile(r"^[0-9a-f]{16}$")
_CHUNKS = re.compile(r"^(?P<a>\d+)(?:-(?P<b>\d+|end))?$")


def _check_view_args(file_id: str | None, chunks: str | None) -> None:
    """In the tool's own words: the shared checks speak of the CLI's --id."""
    if file_id and not _FILE_ID.match(file_id):
        raise MonodexError(f"invalid file_id {file_id!r}", "pass the 16 hex digits of a search hit's file_id")
    m = _CHUNKS.match(chunks) if chunks else None
    if chunks and (not m or int(m["a"]) < 1 or (m["b"] not in (None, "end") and int(m["b"]) < int(m["a"]))):
        raise MonodexError(
            f"invalid chunks {chunks!r}", "use 'N', 'N-M' (N <= M) or 'N-end'; chunks count from 1"
        )


def _result(structured: dict[str, Any], text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def build(paths: Paths) -> MCPServer:
    from monodex.commands import search as search_cmd
    from monodex.commands import status as status_cmd

    backend = Backend(paths)
    server = MCPServer("monodex", version=__version__, instructions=INSTRUCTIONS)

    def target(catalog: str | None, label: str | None) -> tuple[str, str]:
        catalog, label = context.resolve(paths, catalog, label)
        config.load(paths).catalog(catalog)
        return catalog, label

    @server.tool(
        description=(
            "Find the code or docs that answer a question about the repository, in plain words "
            "('where are retries with backoff implemented?'). Use it when you do not know which "
            "file to read; then `view` a result's file_id for more. Results are ranked chunks "
            "with path, lines, breadcrumb (enclosing class/function) and text, packed into "
            "max_tokens (neighbouring chunks of a file merged; what did not fit is listed in "
            "budget.omitted). `freshness` says which commit the index reflects and whether the "
            "branch moved since; set wait_for_fresh to wait (bounded) for the current commit."
        ),
        annotations=READ_ONLY,
    )
    def search(
        query: Annotated[str, Field(description="what you are looking for, in plain words")],
        catalog: Annotated[str | None, Field(description="repository; default: `monodex use`")] = None,
        label: Annotated[str | None, Field(description="branch label; default: `monodex use`")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="hits to consider")] = 10,
        path_prefix: Annotated[
            list[str] | str | None,
            Field(description="only under this folder/file or these (repo-relative)"),
        ] = None,
        package: Annotated[str | None, Field(description="only this package (package.json name)")] = None,
        kind: Annotated[
            Literal["content", "imports", "changelog", "config"] | None,
            Field(description="only chunks of this kind"),
        ] = None,
        mode: Annotated[
            Literal["hybrid", "dense", "lexical"],
            Field(description="hybrid: meaning + keywords (best default); lexical: exact names"),
        ] = "hybrid",
        include_tests: Annotated[
            bool, Field(description="rank tests, snapshots and changelogs like source")
        ] = False,
        max_tokens: Annotated[
            int | None, Field(ge=1, description="token budget of the answer; null: no budget")
        ] = DEFAULT_MAX_TOKENS,
        wait_for_fresh: Annotated[
            float | None,
            Field(ge=0, le=600, description="seconds to wait for the index to reach the branch's commit"),
        ] = None,
    ) -> Annotated[CallToolResult, SearchAnswer]:
        try:
            rpc.check_query(query)
            catalog, label = target(catalog, label)
            args: dict[str, Any] = {"catalog": catalog, "label": label, "text": query, "limit": limit}
            extra = {
                "paths": [path_prefix] if isinstance(path_prefix, str) else path_prefix,
                "package": package,
                "kind": kind,
                "mode": mode,
                "include_tests": include_tests,
            }
            args.update({k: v for k, v in extra.items() if v})
            if max_tokens is not None:
                args["max_tokens"] = max_tokens
            if wait_for_fresh is not None:
                args["fresh"] = wait_for_fresh
            answer = {"catalog": catalog, "label": label, **backend.run("search", args)}
        except MonodexError as exc:
            raise _tool_error(exc) from None
        return _result(answer, search_cmd.render(answer, whole=True))

    @server.tool(
        description=(
            "Read an indexed file: by file_id (from `search`) or by repository-relative path. "
            "`chunks` selects part of it: 'N', 'N-M' or 'N-end' (1-based chunk numbers, as in "
            "search results); omit it for the whole file."
        ),
        annotations=READ_ONLY,
    )
    def view(
        file_id: Annotated[str | None, Field(description="16 hex digits, from a search result")] = None,
        path: Annotated[str | None, Field(description="or the file's repository-relative path")] = None,
        chunks: Annotated[str | None, Field(description="'N', 'N-M' or 'N-end'; default: all")] = None,
        catalog: Annotated[str | None, Field(description="repository; default: `monodex use`")] = None,
        label: Annotated[str | None, Field(description="branch label; default: `monodex use`")] = None,
    ) -> Annotated[CallToolResult, ViewAnswer]:
        try:
            if bool(file_id) == bool(path):
                raise MonodexError("give exactly one of file_id and path", "pass the file_id of a search hit")
            _check_view_args(file_id, chunks)
            catalog, label = target(catalog, label)
            args: dict[str, Any] = {"catalog": catalog, "label": label}
            if path:
                args.update(path=path, range=chunks)
            else:
                args["id"] = f"{file_id}:{chunks}" if chunks else str(file_id)
            answer = {"catalog": catalog, "label": label, **backend.run("view", args)}
        except MonodexError as exc:
            raise _tool_error(exc) from None
        answer["text"] = "".join(str(c["text"]) for c in answer["chunks"])
        first, last = answer["chunks"][0], answer["chunks"][-1]
        head = f"{answer['relative_path']}:{first['start_line']}-{last['end_line']} (id {answer['file_id']})"
        return _result(answer, head + "\n" + answer["text"])

    @server.tool(
        description="List what is indexed: each catalog's labels, the commit each reflects, chunk counts.",
        annotations=READ_ONLY,
    )
    def labels(
        catalog: Annotated[str | None, Field(description="only this repository")] = None,
    ) -> Annotated[CallToolResult, LabelsAnswer]:
        try:
            if catalog:
                config.load(paths).catalog(catalog)
            answer = backend.run("labels", {"catalog": catalog} if catalog else {})
        except MonodexError as exc:
            raise _tool_error(exc) from None
        rows = [
            f"{r['catalog']}:{r['label']} at {r['commit_oid'][:12]}, {r['chunks']} chunks"
            for r in answer["labels"]
        ]
        return _result(answer, "\n".join(rows) or "Nothing is indexed yet.")

    @server.tool(
        description=(
            "How fresh the index is: whether the background runner is up, queued refreshes, "
            "and for each label its indexed commit against its branch's current commit."
        ),
        annotations=READ_ONLY,
    )
    def status() -> Annotated[CallToolResult, StatusAnswer]:
        try:
            answer = status_cmd.collect(paths)
        except MonodexError as exc:
            raise _tool_error(exc) from None
        return _result(answer, status_cmd.render(answer))

    return server
