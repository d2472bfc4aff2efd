"""What a grammar's node types mean to the partitioner: one Vocabulary per language.

The partitioner (chunkers/tssplit.py, tsmeta.py) reads only this, so one algorithm serves
TypeScript (tsnodes.py, unchanged), the table-driven languages (languages.py) and config (keys.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Vocabulary:
    name: str
    split_scopes: frozenset[str]  # bodies whose meaningful children are the preferred split points
    weak_scopes: frozenset[str]  # bodies split between any two children (arrays, argument lists)
    conduits: frozenset[str]  # nodes the search descends through to reach scopes below them
    imports: frozenset[str]  # top-level statements of the leading import block (kind "imports")
    comments: frozenset[str]  # comment node types: never a split point of their own
    comment_prefixes: tuple[str, ...]  # a line starting so is a comment (what a chunk is about)
    meaningful: Callable[[Any, float], bool]  # (node, budget scale): a split point, a describer
    name_of: Callable[[Any], str | None]  # the declared name, or None
    type_of: Callable[[Any], str]  # chunk_type: "function", "class", ...
    owner: Callable[[list[Any], int], str | None]  # what path[i] adds to the names inside it
    preamble: frozenset[str] = frozenset()  # may stand before or among the imports (a docstring)
    # Scopes whose every child but a comment is a split point (config arrays). Told by the scope,
    # not by asking a node for its parent: tree-sitter finds a parent by walking down from the
    # root, which over an array of 60,000 elements would be quadratic.
    elements_of: frozenset[str] = frozenset()

    scopes: frozenset[str] = field(init=False)  # split and weak scopes, computed once

    def __post_init__(self) -> None:
        object.__setattr__(self, "scopes", self.split_scopes | self.weak_scopes)


def end_row(node: Any) -> int:
    """The last line a node occupies (a node ending at column 0 ends on the line before)."""
    row, col = int(node.end_point[0]), int(node.end_point[1])
    return row - 1 if col == 0 and row > node.start_point[0] else row


def size(node: Any) -> int:
    return int(node.end_byte - node.start_byte)
