"""Syntax-aware chunkers for JavaScript, the languages in syntax/languages.py and config files
(syntax/keys.py): the TypeScript partitioner's algorithm (partition.py) with each one's
vocabulary and grammar."""

from __future__ import annotations

from dataclasses import dataclass

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.partition import chunk_parsed, tree_of
from monodex.indexer.chunkers.tssplit import SizeBudget
from monodex.indexer.syntax import grammars, keys
from monodex.indexer.syntax.languages import VOCABULARIES
from monodex.indexer.syntax.tree import Tree
from monodex.indexer.syntax.tsnodes import TYPESCRIPT
from monodex.indexer.syntax.vocab import Vocabulary


@dataclass(frozen=True)
class SyntaxChunker:
    """One strategy: a grammar and what its nodes mean. Satisfies the Chunker protocol."""

    name: str  # the strategy name a crawl policy uses
    version: str
    grammar: str  # syntax/grammars.py's name
    vocab: Vocabulary

    def parse(self, text: str, relative_path: str, budget: SizeBudget) -> Tree | None:
        data = text.encode("utf-8", "surrogatepass")
        return tree_of(grammars.parse(data, self.grammar), budget, len(data), self.vocab)

    def chunk(self, text: str, ctx: FileContext) -> list[Chunk]:
        """Chunks that tile `text`; never raises on any text (a failed parse falls back to lines)."""
        return chunk_parsed(text, ctx, parse=self.parse, kind=file_kind(ctx.relative_path, self.name))


# Versions (each bump re-chunks that strategy's files at a label's next refresh; a chunk whose
# embedded text is unchanged keeps its vector). v2 of every one here: a chunk of top-level
# statements naming one declaration is named by it (tsmeta._subject: imports + the first function);
# config keys also keep their quotes unless one quoted key (`target.'cfg(unix)'` lost its last one).
# tree-sitter-javascript names its nodes as the TypeScript grammar does (and parses JSX in .js).
JAVASCRIPT = SyntaxChunker("javascript", "v2", "javascript", TYPESCRIPT)
LANGUAGES = {name: SyntaxChunker(name, "v2", name, vocab) for name, vocab in VOCABULARIES.items()}
CONFIG = {v.name: SyntaxChunker(v.name, "v2", v.name, v) for v in (keys.JSON, keys.TOML, keys.YAML)}
