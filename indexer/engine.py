"""The implementation side of identity: one embedder plus the chunkers, budget derived from it."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from monodex.indexer import chunkers
from monodex.indexer.chunkers.base import Chunk, FileContext

if TYPE_CHECKING:
    from monodex.indexer.embed.model import Embedder


class Engine:
    """What the crawl needs from code: ids, chunking at the model's budget, embedding."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.embedder_id = embedder.spec.embedder_id
        self.dim = embedder.dim
        # The chunk budget follows the model's token limit, so it is part of chunker_id.
        self.budget = chunkers.budget_for(embedder.spec.max_tokens)

    def chunker_id(self, strategy: str) -> str:
        return chunkers.chunker_id(strategy, self.budget)

    def chunk(self, strategy: str, text: str, ctx: FileContext) -> list[Chunk]:
        return chunkers.chunk_file(strategy, text, dataclasses.replace(ctx, budget=self.budget))

    @property
    def parallel(self) -> int:
        return self.embedder.parallel

    def close(self) -> None:
        self.embedder.close()

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return self.embedder.embed_documents(texts)

    def count_tokens(self, text: str) -> int:
        return self.embedder.count_plain(text)

    def embed_query(self, text: str) -> Sequence[float]:
        return [float(x) for x in self.embedder.embed_query(text)]
