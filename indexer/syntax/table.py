"""A language as a table: which nodes define things, which are bodies to split, how to name them.

One table per language (languages.py) becomes a Vocabulary for the shared partitioner: a
definition is always a split point and names its chunk; any other statement is one when it is big
(400 bytes at the 6000-byte budget, as the TypeScript `if`); small members (fields, properties)
count from a size, as TypeScript's do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.syntax.vocab import Vocabulary, size

Namer = Callable[[Any], "str | None"]

STATEMENT_BYTES = 400  # at the 6000-byte budget; scales with it
MAX_NAME = 200


@dataclass(frozen=True)
class Table:
    name: str
    definitions: dict[str, str]  # node type -> chunk_type; always meaningful, named
    scopes: frozenset[str]  # the root and the bodies whose children are statements or members
    conduits: frozenset[str]  # nodes searched through (definitions are, too)
    qualifiers: frozenset[str]  # definitions whose name qualifies the names inside them
    imports: frozenset[str]
    comments: frozenset[str]
    comment_prefixes: tuple[str, ...]
    weak: frozenset[str] = frozenset()  # lists, argument lists: split between any elements
    wrappers: frozenset[str] = frozenset()  # mean their inner definition (decorators, templates)
    small: dict[str, int] = field(default_factory=dict)  # definition -> bytes before it counts
    needs_body: frozenset[str] = frozenset()  # a definition only with a `body` (C's `struct x *p`)
    namers: dict[str, Namer] = field(default_factory=dict)  # node type -> its own naming rule
    preamble: frozenset[str] = frozenset()  # may sit among the imports (a module docstring)

    def vocabulary(self) -> Vocabulary:
        return Vocabulary(
            name=self.name,
            split_scopes=self.scopes,
            weak_scopes=self.weak,
            conduits=self.conduits | frozenset(self.definitions) | self.wrappers,
            imports=self.imports,
            comments=self.comments,
            comment_prefixes=self.comment_prefixes,
            meaningful=self._meaningful,
            name_of=self._name_of,
            type_of=self._type_of,
            owner=self._owner,
            preamble=self.preamble,
        )

    def _inner(self, node: Any) -> Any | None:
        """A wrapper's definition (a decorated function, a template's class)."""
        return next(
            (c for c in node.named_children if c.type in self.definitions or c.type in self.wrappers), None
        )

    def _meaningful(self, node: Any, scale: float) -> bool:
        t = node.type
        if t in self.wrappers:
            return True
        if t in self.definitions:
            if t in self.needs_body and node.child_by_field_name("body") is None:
                return False
            return t not in self.small or size(node) > self.small[t] * scale
        return t not in self.comments and size(node) > STATEMENT_BYTES * scale

    def _name_of(self, node: Any) -> str | None:
        t = node.type
        if t in self.wrappers:
            inner = self._inner(node)
            return self._name_of(inner) if inner is not None else None
        if t not in self.definitions:
            return None
        if t in self.namers:
            return self.namers[t](node)
        return text_of(node.child_by_field_name("name"))

    def _type_of(self, node: Any) -> str:
        if node.type in self.wrappers:
            inner = self._inner(node)
            return self._type_of(inner) if inner is not None else "code"
        return self.definitions.get(node.type, "code")

    def _owner(self, path: list[Any], i: int) -> str | None:
        return self._name_of(path[i]) if path[i].type in self.qualifiers else None


def text_of(node: Any | None) -> str | None:
    """A name node's text on one line, at most MAX_NAME characters."""
    if node is None:
        return None
    text: str = node.text.decode("utf-8", "replace")
    return " ".join(text.split())[:MAX_NAME] or None


def by_field(*fields: str) -> Namer:
    """The name is the first of these fields the node has (Go's type_spec: `name`)."""

    def name(node: Any | None) -> str | None:
        if node is None:
            return None
        return next((text_of(n) for f in fields if (n := node.child_by_field_name(f)) is not None), None)

    return name
