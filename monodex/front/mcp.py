"""`monodex mcp`: the index as Model Context Protocol tools over stdio, for AI coding agents.

Built on the official `mcp` SDK. Each tool builds the same request as the CLI command
(monodex/requests/) and runs it the same way (front/route.py): through the runner's socket when
it is up, else in this process with a model kept warm here and the shard opened only for the
call, so a runner can start at any time. Every failure comes back in one shape, the SDK's
is_error result whose text is the problem then `Next step: ...`, naming the tool's parameters
(not the CLI's flags): what a tool's body raises, arguments the tools' schemas reject (checked
before the SDK's pydantic model, whose own text names no next step and links to pydantic's site),
arguments a tool does not have (rejected, never silently dropped), an unknown tool, and a crash
(its text stays in the server's log). Raised from a tool's body, the SDK would prefix the text
with "Error executing tool NAME: " and not the others: so errors are returned, never raised.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import UnexpectedToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

from monodex import __version__
from monodex import requests as rq
from monodex.disk.paths import Paths
from monodex.errors import MonodexError, UsageError
from monodex.front import render, route
from monodex.front import status as status_
from monodex.front.mcp_models import model_of
from monodex.observe import logs
from monodex.schema import compare as schema_compare
from monodex.schema import labels as schema_labels
from monodex.schema import status as schema_status
from monodex.schema.search import ToolSearchAnswer, ToolViewAnswer
from monodex.settings import context

INSTRUCTIONS = """monodex is a semantic index of a git monorepo (TypeScript, Markdown), kept up to date
with its branches. Use `search` to find where something is implemented or explained when you do
not know the file; use `view` to read a file (or some of its chunks) once you know it. Every
answer says which commit it reflects and whether the branch has moved since (`freshness`). By
default it answers for the repository and branch checked out where this server runs (a linked
worktree included); a branch not indexed yet is indexed at the first search (seconds).
Across branches: `search` with labels or all_labels says which branches hold each hit, `diff`
says what changed between two branches (ask it about a topic with `query`), and
`labels_containing` says which branches hold a file version or a line."""

DEFAULT_MAX_TOKENS = 4000
# Request fields this surface names differently (the rest keep the request's name).
NAMES = {"text": "query", "paths": "path_prefix", "fresh": "wait_for_fresh", "wait_dense": "wait_for_dense"}
CATALOG_HELP = "repository; default: the one the server's working directory is in, else `monodex use`"
LABEL_HELP = "branch label; default: the branch checked out there, else `monodex use`"
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
A = TypeVar("A")


# The tools' output models: the answers' TypedDicts, as pydantic models (front/mcp_models.py).
SearchAnswer = model_of(ToolSearchAnswer, "SearchAnswer")
ViewAnswer = model_of(ToolViewAnswer, "ViewAnswer")
LabelsAnswer = model_of(schema_labels.LabelsAnswer)
DiffAnswer = model_of(schema_compare.DiffAnswer)
ContainingAnswer = model_of(schema_compare.ContainingAnswer)
StatusAnswer = model_of(schema_status.StatusAnswer)


def _tool_error(exc: MonodexError) -> CallToolResult:
    """Every tool error, in one shape: the problem, then the next step."""
    if isinstance(exc, rq.FieldError):
        exc = exc.spelled(lambda field: NAMES.get(field, field), joiner="=")
    text = exc.problem + (f"\nNext step: {exc.hint}" if exc.hint else "")
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _many(value: list[str] | str | None) -> tuple[str, ...]:
    """A parameter that takes one string or a list of them."""
    return (value,) if isinstance(value, str) else tuple(value or ())


def _bad_arguments(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> UsageError | None:
    """What is wrong with a call's arguments, in the CLI's words; None when the schema takes them."""
    props: dict[str, Any] = schema.get("properties", {})
    unknown = sorted(set(arguments) - set(props))
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(props), n=1)
        guess = f"did you mean {close[0]}? " if close else ""
        return UsageError(
            f"{tool} has no argument {unknown[0]!r}", f"{guess}{tool} takes: {', '.join(props)}"
        )
    return None


def _invalid(exc: ValidationError, schema: dict[str, Any]) -> UsageError:
    first = exc.errors(include_url=False)[0]
    name = str(first["loc"][0]) if first["loc"] else "arguments"
    about = schema.get("properties", {}).get(name, {}).get("description", "")
    if first["type"] == "missing":
        return UsageError(f"{name} is required", f"pass {name}" + (f" ({about})" if about else ""))
    hint = f"fix {name}" + (f" ({about})" if about else "")
    msg = str(first["msg"])
    return UsageError(f"invalid {name} {first['input']!r}: {msg[:1].lower()}{msg[1:]}", hint)


class _Server(MCPServer):
    """The SDK's server with each call's arguments checked first (see the module's docstring)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            known = [t.name for t in self._tool_manager.list_tools()]
            close = difflib.get_close_matches(name, known, n=1)
            guess = f"did you mean {close[0]}? " if close else ""
            return _tool_error(UsageError(f"no tool named {name!r}", f"{guess}the tools: {', '.join(known)}"))
        bad = _bad_arguments(name, tool.parameters, arguments)
        if bad is None:
            try:
                tool.fn_metadata.arg_model.model_validate(tool.fn_metadata.pre_parse_json(arguments))
            except ValidationError as exc:
                bad = _invalid(exc, tool.parameters)
        if bad is not None:
            return _tool_error(bad)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError as exc:  # a crash: its text stays here, as the SDK keeps it
            cause = exc.__cause__ or exc
            logs.get("monodex.mcp").error("mcp.tool_crashed", tool=name, exc_info=cause)
            return _tool_error(
                MonodexError(
                    f"{name} failed unexpectedly ({type(cause).__name__})",
                    "the traceback is on the server's stderr (the MCP client's log); report it",
                )
            )


def _result(structured: Mapping[str, object], text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=dict(structured))


def build(paths: Paths) -> MCPServer:
    local = route.Local(keep_model=True)
    server = _Server("monodex", version=__version__, instructions=INSTRUCTIONS)

    def run(request: rq.Asks[A]) -> A:
        return route.execute(paths, request, quiet=True, local=local)

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
        catalog: Annotated[str | None, Field(description=CATALOG_HELP)] = None,
        label: Annotated[str | None, Field(description=LABEL_HELP)] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="hits to consider")] = rq.DEFAULT_LIMIT,
        path_prefix: Annotated[
            list[str] | str | None,
            Field(description="only under this folder/file or these (repo-relative)"),
        ] = None,
        package: Annotated[str | None, Field(description="only this package (package.json name)")] = None,
        kind: Annotated[
            Literal["content", "imports", "changelog", "config"] | None,
            Field(description="only chunks of this kind"),
        ] = None,
        lang: Annotated[
            str | None, Field(description="only files in this language, e.g. typescript or markdown")
        ] = None,
        mode: Annotated[
            Literal["hybrid", "dense", "lexical"],
            Field(description="hybrid: meaning + keywords (best default); lexical: exact names"),
        ] = "hybrid",
        per_file: Annotated[int, Field(ge=1, description="at most this many hits from one file")] = 1,
        include_tests: Annotated[
            bool, Field(description="rank tests, snapshots and changelogs like source")
        ] = False,
        explain: Annotated[
            bool,
            Field(
                description="add how the query was read and each hit's dense rank, lexical rank, fused "
                "score and signals"
            ),
        ] = False,
        max_tokens: Annotated[
            int | None, Field(ge=1, description="token budget of the answer; null: no budget")
        ] = DEFAULT_MAX_TOKENS,
        wait_for_fresh: Annotated[
            float | None,
            Field(ge=0, le=600, description="seconds to wait for the index to reach the branch's commit"),
        ] = None,
        wait_for_dense: Annotated[
            bool, Field(description="with wait_for_fresh: also wait for every dense vector (full hybrid)")
        ] = False,
        worktree: Annotated[
            str | None,
            Field(
                description="absolute path of a checkout (a linked worktree) to answer for: its "
                "repository and branch, and its uncommitted edits (modified, new, deleted files) "
                "searched instead of the committed versions; default: where the server's working "
                "directory stands"
            ),
        ] = None,
        committed: Annotated[
            bool, Field(description="search the branch as committed, without uncommitted edits")
        ] = False,
        as_indexed: Annotated[
            bool,
            Field(
                description="answer from the label as indexed even when it is not at the commit "
                "checked out where you stand (by default it is caught up first)"
            ),
        ] = False,
        labels: Annotated[
            list[str] | str | None,
            Field(
                description="search every label matching these globs at once ('release/*'); each hit "
                "lists the labels holding it and those holding another version of its file"
            ),
        ] = None,
        all_labels: Annotated[bool, Field(description="search every label of the catalog at once")] = False,
    ) -> Annotated[CallToolResult, SearchAnswer]:
        globs = _many(labels)
        try:
            worktree_ = None
            if globs or all_labels:
                catalog, label = context.resolve_catalog(paths, catalog, here=Path.cwd()), label or ""
            else:
                target = context.scope(paths, catalog, label, here=Path.cwd(), worktree=worktree)
                catalog, label, worktree_ = target.catalog, target.label, target.worktree
            request = rq.SearchRequest(
                catalog,
                label,
                query,
                limit=limit,
                paths=_many(path_prefix),
                package=package,
                kind=kind,
                lang=lang,
                mode=mode,
                per_file=per_file,
                include_tests=include_tests,
                explain=explain,
                fresh=wait_for_fresh,
                max_tokens=max_tokens,
                wait_dense=wait_for_dense,
                worktree=worktree_,
                committed=committed,
                as_indexed=as_indexed,
                labels=globs,
                all_labels=all_labels,
            )
            answer: ToolSearchAnswer = {"catalog": catalog, "label": label or None, **run(request)}
        except MonodexError as exc:
            return _tool_error(exc)
        return _result(answer, render.search(answer, whole=True, budget="max_tokens"))

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
        catalog: Annotated[str | None, Field(description=CATALOG_HELP)] = None,
        label: Annotated[str | None, Field(description=LABEL_HELP)] = None,
    ) -> Annotated[CallToolResult, ViewAnswer]:
        try:
            target = context.scope(paths, catalog, label, here=Path.cwd())
            catalog, label = target.catalog, target.label
            request = rq.ViewRequest(catalog, label, file_id=file_id, path=path, chunks=chunks)
            viewed = run(request)
        except MonodexError as exc:
            return _tool_error(exc)
        whole = "".join(str(c["text"]) for c in viewed["chunks"])
        answer: ToolViewAnswer = {"catalog": catalog, "label": label, **viewed, "text": whole}
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
            answer = run(rq.LabelsRequest(catalog or None))
        except MonodexError as exc:
            return _tool_error(exc)
        rows = [
            f"{r['catalog']}:{r['label']} at {r['commit_oid'][:12]}, {r['chunks']} chunks"
            for r in answer["labels"]
        ]
        return _result(answer, "\n".join(rows) or "Nothing is indexed yet.")

    @server.tool(
        description=(
            "What changed between two labels (branches) of a repository: files added, removed and "
            "changed, grouped by package, with the symbols (breadcrumbs) whose code changed, read "
            "from the index (no checkout). Give `query` to rank the changes by relevance to a "
            "question ('what changed about retry'): only the best `limit` files are kept."
        ),
        annotations=READ_ONLY,
    )
    def diff(
        from_label: Annotated[str, Field(description="the label before, e.g. main")],
        to_label: Annotated[str, Field(description="the label after, e.g. release/5.2")],
        query: Annotated[str | None, Field(description="rank the changes by relevance to this")] = None,
        catalog: Annotated[str | None, Field(description="repository; default: `monodex use`")] = None,
        limit: Annotated[int | None, Field(ge=1, description="at most this many files")] = None,
        path_prefix: Annotated[
            list[str] | str | None, Field(description="only under this folder/file or these")
        ] = None,
        mode: Annotated[
            Literal["hybrid", "dense", "lexical"], Field(description="with query: how it is matched")
        ] = "hybrid",
    ) -> Annotated[CallToolResult, DiffAnswer]:
        try:
            request = rq.DiffRequest(
                context.resolve_catalog(paths, catalog, here=Path.cwd()),
                from_label,
                to_label,
                text=query,
                limit=limit,
                paths=_many(path_prefix),
                mode=mode,
            )
            answer = run(request)
        except MonodexError as exc:
            return _tool_error(exc)
        return _result(answer, render.diff(answer))

    @server.tool(
        description=(
            "Where does this exist: which labels (branches) hold a file version or a chunk, and "
            "which hold another version of the same path. `target` is a file_id (from `search`), "
            "file_id:N (chunk N), a repository-relative path, or path:line."
        ),
        annotations=READ_ONLY,
    )
    def labels_containing(
        target: Annotated[str, Field(description="FILE_ID, FILE_ID:N, PATH or PATH:LINE")],
        catalog: Annotated[str | None, Field(description="repository; default: `monodex use`")] = None,
        label: Annotated[
            str | None,
            Field(
                description="whose version of the path is meant, when several exist; default: the "
                "label of the branch checked out where the server runs, when it holds one"
            ),
        ] = None,
        worktree: Annotated[
            str | None,
            Field(description="absolute path of a checkout to stand in instead (its branch's version)"),
        ] = None,
    ) -> Annotated[CallToolResult, ContainingAnswer]:
        try:
            where, stand = context.catalog_here(paths, catalog, here=Path.cwd(), worktree=worktree)
            top = str(stand.worktree) if stand is not None else None
            answer = run(rq.ContainingRequest(where, target, label, worktree=top))
        except MonodexError as exc:
            return _tool_error(exc)
        return _result(answer, render.containing(answer))

    @server.tool(
        description=(
            "How fresh the index is: whether the background runner is up, queued refreshes, "
            "and for each label its indexed commit against its branch's current commit."
        ),
        annotations=READ_ONLY,
    )
    def status() -> Annotated[CallToolResult, StatusAnswer]:
        try:
            answer = status_.collect(paths)
        except MonodexError as exc:
            return _tool_error(exc)
        return _result(answer, render.status(answer))

    for tool in server._tool_manager.list_tools():  # say so in the schemas too: clients may check
        tool.parameters["additionalProperties"] = False
    return server
