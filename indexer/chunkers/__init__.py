"""Chunkers by strategy name (the crawl policy's vocabulary): an explicit registry."""

from __future__ import annotations

from types import ModuleType
from typing import cast

from monodex.indexer.chunkers import linebased, markdown, typescript
from monodex.indexer.chunkers.base import Chunk, Chunker, FileContext

from monodex.errors import UsageError

CHUNKERS: dict[str, Chunker] = {
    m.name: cast(Chunker, m) for m in (typescript, markdown, linebased) if isinstance(m, ModuleType)
}
_IDS = {"typescript": "typescript-partitioner", "markdown": "markdown-sections", "lineBased": "line-windows"}


def budget_for(max_tokens: int) -> int:
    """Chunk budget in UTF-8 bytes for a model's token limit: TypeScript runs ~3.3 characters per
    token (measured), less 5% headroom; capped at the original's 6000 for 8192-token models."""
    return min(6000, int(max_tokens * 3.3 * 0.95))


def chunker_id(strategy: str, budget: int) -> str:
    """Part of file identity: changes whenever a chunker's output for the same input changes."""
    return f"{_IDS[strategy]}:{_get(strategy).version}:budget={budget}"


def _get(strategy: str) -> Chunker:
    try:
        return CHUNKERS[strategy]
    except KeyError:
        raise UsageError(
            f"unknown chunking strategy {strategy!r}", f"use one of {', '.join(CHUNKERS)}"
        ) from None


def chunk_file(strategy: str, text: str, ctx: FileContext) -> list[Chunk]:
    return _get(strategy).chunk(text, ctx)
