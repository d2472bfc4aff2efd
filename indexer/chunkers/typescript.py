"""The TypeScript partitioner (`typescript`): .ts with the TypeScript grammar, .tsx with TSX.

The algorithm is partition.py's, with the TypeScript vocabulary (syntax/tsnodes.py).
"""

from __future__ import annotations

import posixpath

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.partition import MARKERS as MARKERS  # re-exported: tests, bench
from monodex.indexer.chunkers.partition import chunk_parsed, tree_of
from monodex.indexer.chunkers.partition import partition as partition
from monodex.indexer.chunkers.tssplit import SizeBudget
from monodex.indexer.syntax import grammars
from monodex.indexer.syntax.tree import Tree
from monodex.indexer.syntax.tsnodes import TYPESCRIPT

name = "typescript"
# v3: a chunk of top-level statements naming one declaration is named by it (tsmeta._subject).
version = "v3"


def parse(text: str, relative_path: str, budget: SizeBudget) -> Tree | None:
    tsx = posixpath.splitext(relative_path)[1].lower() in (".tsx", ".jsx")
    data = text.encode("utf-8", "surrogatepass")
    root = grammars.parse(data, "tsx" if tsx else "typescript")
    return tree_of(root, budget, len(data), TYPESCRIPT)


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    """Chunks that tile `text`; never raises on any text (a failed parse falls back to lines)."""
    return chunk_parsed(text, ctx, parse=parse, kind=file_kind(ctx.relative_path, name))
