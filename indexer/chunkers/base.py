"""What every chunker produces, and the Protocol a chunker module satisfies."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Protocol

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


@dataclass(frozen=True)
class Delegating:
    """A strategy that hands each file to one of its delegates by the file's text (a script's `#!`
    line, a header's C++). Satisfies Chunker; its version names the delegates' (a change to one
    re-chunks the files it reads)."""

    delegates: Mapping[str, Chunker]
    ORDER: ClassVar[tuple[str, ...]] = ()  # the delegates its version names

    def choose(self, text: str, relative_path: str) -> str:
        raise NotImplementedError

    @property
    def version(self) -> str:
        return "v1(" + ",".join(f"{d}={self.delegates[d].version}" for d in self.ORDER) + ")"

    def chunk(self, text: str, ctx: FileContext) -> list[Chunk]:
        return self.delegates[self.choose(text, ctx.relative_path)].chunk(text, ctx)
