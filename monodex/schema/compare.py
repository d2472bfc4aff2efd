"""Answers about several labels at once (issue 24): what changed between two (`diff`), and which
labels hold a file version or a chunk (`labels --containing`)."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict

from monodex.schema.search import OtherVersion

CHANGES = ("added", "removed", "changed")
_CHANGE = "added, removed or changed"


class Symbol(TypedDict):
    breadcrumb: str
    symbol: str | None
    change: Annotated[str, _CHANGE]
    from_lines: list[int] | None
    to_lines: list[int] | None
    score: NotRequired[Annotated[float, "with a query: relevance of this symbol's change"]]


class FileChange(TypedDict):
    path: str
    change: Annotated[str, _CHANGE]
    package: str | None
    from_file_id: Annotated[str | None, "the version in from_label (pass to `view`)"]
    to_file_id: Annotated[str | None, "the version in to_label"]
    chunks_added: int
    chunks_removed: int
    symbols: list[Symbol]
    score: NotRequired[Annotated[float, "with a query: relevance of the file's change"]]


class Summary(TypedDict):
    files_added: int
    files_removed: int
    files_changed: int
    chunks_added: int
    chunks_removed: int


class PackageChanges(TypedDict):
    package: str | None
    added: int
    removed: int
    changed: int


# "from" is a keyword: these are spelled in the functional syntax.
Sides = TypedDict("Sides", {"from": str, "to": str})
DiffAnswer = TypedDict(
    "DiffAnswer",
    {
        "catalog": str,
        "from": str,
        "to": str,
        "commits": Sides,
        "source_kinds": Sides,
        "complete": bool,
        "summary": Summary,
        "packages": list[PackageChanges],
        "files": list[FileChange],
        "more": NotRequired[Annotated[int, "with a query: changed files found but ranked below limit"]],
        "unmatched": NotRequired[Annotated[int, "with a query: changed files the query did not find"]],
        "notes": NotRequired[list[str]],
    },
)


class ChunkAt(TypedDict):
    chunk_ordinal: int
    start_line: int
    end_line: int
    breadcrumb: str | None


class Version(TypedDict):
    file_id: str
    labels: list[str]


class ContainingAnswer(TypedDict):
    catalog: str
    relative_path: str
    file_id: str
    chunk: NotRequired[ChunkAt]
    labels: Annotated[list[str], "labels holding this exact file version (or chunk text)"]
    other_versions: Annotated[list[OtherVersion], "labels holding the path with other content"]
    versions: list[Version]
