"""What a TypeScript chunk is about: chunk_type and a qualified symbol (reference §2.6, improved).

The describing node is the smallest meaningful node whose lines contain the chunk; its name, or
the nearest named meaningful ancestor's, is qualified by the classes, interfaces, namespaces and
object literals around it: `JsonFile.load`, `IOptions.timeout`, `eventHandlers.onChange`.
"""

from __future__ import annotations

from typing import Any

from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.chunkers.tsnodes import (
    OBJECT_OWNERS,
    QUALIFIERS,
    WRAPPERS,
    meaningful,
    name_of,
    type_of,
)
from monodex.indexer.chunkers.tstree import Tree


def describe(tree: Tree, lines: Lines, start: int, end: int) -> tuple[str, str | None]:
    """(chunk_type, qualified symbol) of the chunk covering lines [start, end] (0-based)."""
    start, end = _core(lines, start, end)
    path = tree.containing_path(start, end)
    smallest = next((i for i in range(len(path) - 1, 0, -1) if meaningful(path[i], tree.scale)), None)
    if smallest is None:
        return "code", None
    for i in range(smallest, 0, -1):
        if meaningful(path[i], tree.scale) and (symbol := name_of(path[i])):
            return type_of(path[i]), ".".join([*_owners(path[:i]), symbol])
    return type_of(path[smallest]), None


def _core(lines: Lines, start: int, end: int) -> tuple[int, int]:
    """The lines that say what a chunk is about. Splits fall right after a declaration, so a chunk
    usually starts with the next one's doc comment, and one that ends a class carries its closing
    brace: leading comments, blank lines and trailing closing punctuation do not count."""
    while start < end and _is_comment_or_blank(lines.lines[start]):
        start += 1
    while end > start and not lines.lines[end].strip().strip("});,]"):
        end -= 1
    return start, end


def _is_comment_or_blank(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(("//", "/*", "*"))


def _owners(path: list[Any]) -> list[str]:
    owners = []
    for i, node in enumerate(path):
        if node.type in QUALIFIERS:
            owner = name_of(node)
        elif node.type == "object":
            owner = _object_owner(path[:i])
        else:
            continue
        if owner:
            owners.append(owner)
    return owners


def _object_owner(ancestors: list[Any]) -> str | None:
    for node in reversed(ancestors):
        if node.type not in WRAPPERS:
            return name_of(node) if node.type in OBJECT_OWNERS else None
    return None
