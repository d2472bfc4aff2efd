"""What every chunker produces, and the Protocol a chunker module satisfies."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

CHUNK_KINDS = ("content", "imports", "changelog", "config")


@dataclass(frozen=True)
class FileContext:
    """What a chunker knows about the file besides its text."""

    relative_path: str  # repo-relative, '/'-separated
    package_name: str  # nearest ancestor package.json name, else the catalog name
    budget: int  # maximum chunk size in UTF-8 bytes (derived from the embedder's token limit)


@dataclass(frozen=True)
class Chunk:
    """One piece of a file. The chunks of a file tile it: joined, they are the file."""

    text: str  # raw text including its line endings
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    symbol_name: str | None  # qualified where possible: "JsonFile.load"
    chunk_type: str  # AST-derived type ("function", "class", ...) or "markdown-section", "text"
    chunk_kind: str  # one of CHUNK_KINDS
    breadcrumb: str  # "pkg:File.ts:Symbol", plus ":[fallback-split]" / ":[degraded-ast-split]"


class Chunker(Protocol):
    @property
    def name(self) -> str: ...  # the strategy name used in crawl policy ("typescript", "python")

    @property
    def version(self) -> str: ...  # bumped whenever output for the same input changes

    def chunk(self, text: str, ctx: FileContext) -> list[Chunk]: ...
