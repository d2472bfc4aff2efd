"""A line-indexed view of a parsed tree (any grammar), built lazily and cached per node.

tree-sitter makes a new Python object for every child access, and a big file's `program` has
thousands of children; scanning them on every split made chunking quadratic (0.48 s for a 345 KB
file, 0.44 s of it in that scan). Here each node's children are read once, with their line spans
sorted, so the children overlapping or containing a line range are found by bisection.

Hostile input is bounded two ways, both deterministic. Nodes deeper than MAX_DEPTH have no
children here, so ranges inside them split by lines: 40,000 nested `if`s made every split walk
the whole chain of ancestors (286 s). And every child visited costs a unit of work; past the
allowance (linear in the file's size) `OutOfWork` is raised and the caller splits the rest of the
file by lines.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Any

from monodex.indexer.syntax.vocab import Vocabulary, end_row

# Levels of named nodes below the root. The deepest TypeScript file in rushstack (3,900 files)
# is 55 levels deep; nesting needs ~2-3 levels a source level (`if` > block > `if`).
MAX_DEPTH = 100
# Units of work (children visited) allowed per byte of the file, and for any file; a unit costs
# ~0.6 us, so the allowance bounds the partitioner at ~1.3 s a MiB. A split visits the children of
# the scopes overlapping its range: rushstack's files (3,900) need at most 0.46 units a byte and
# 7,100 in all; the flattest big file, a table of 60,000 `key: value` pairs (1.1 MB), 0.82.
WORK_PER_BYTE = 2
WORK_BASE = 50_000


class OutOfWork(Exception):
    """The partitioner used up its allowance of work for this file."""


@dataclass(frozen=True)
class Kids:
    nodes: list[Any]
    starts: list[int]  # first line of each child (0-based)
    ends: list[int]  # last line of each child; non-decreasing, since siblings do not overlap
    split_points: list[bool]  # meaningful for splitting (reference §2.3), plus the import block's end


class Tree:
    """One parsed file: its root and its children by line, cached by node id."""

    def __init__(self, root: Any, scale: float, *, vocab: Vocabulary, allowance: int | None = None) -> None:
        self.root = root
        self.vocab = vocab
        self.scale = scale
        self.work = 0  # children visited so far
        self.allowance = allowance  # None: no limit
        self._kids: dict[int, Kids] = {}
        self._depth: dict[int, int] = {root.id: 0}
        self.barren: dict[int, bool] = {}  # node id -> no split scope below it (tssplit)

    def spend(self, units: int) -> None:
        self.work += units
        if self.allowance is not None and self.work > self.allowance:
            raise OutOfWork(f"{self.work} units of work, allowed {self.allowance}")

    def kids(self, node: Any) -> Kids:
        cached = self._kids.get(node.id)
        if cached is None:
            depth = self._depth.get(node.id, MAX_DEPTH)  # every node is reached through kids()
            nodes = list(node.named_children) if depth < MAX_DEPTH else []
            self.spend(1 + len(nodes))
            self._depth.update(dict.fromkeys([n.id for n in nodes], depth + 1))
            vocab = self.vocab
            if node.type in vocab.elements_of:
                flags = [n.type not in ("comment", *vocab.comments) for n in nodes]
            else:
                flags = [vocab.meaningful(n, self.scale) for n in nodes]
            if node.id == self.root.id:
                _mark_import_block(nodes, flags, self.vocab)
            cached = Kids(nodes, [n.start_point[0] for n in nodes], [end_row(n) for n in nodes], flags)
            self._kids[node.id] = cached
        return cached

    def overlapping(self, node: Any, start: int, end: int) -> range:
        """Indexes into kids(node) of the children sharing a line with [start, end]."""
        kids = self.kids(node)
        found = range(bisect_left(kids.ends, start), bisect_right(kids.starts, end))
        self.spend(1 + len(found))  # what the caller goes on to look at
        return found

    def containing_path(self, start: int, end: int) -> list[Any]:
        """Nodes from the root down whose lines contain [start, end]: the deepest chain."""
        path = [self.root]
        while True:
            kids = self.kids(path[-1])
            self.spend(1)
            i = bisect_left(kids.ends, end)
            if i >= len(kids.nodes) or kids.starts[i] > start:
                return path
            path.append(kids.nodes[i])


def _mark_import_block(nodes: list[Any], flags: list[bool], vocab: Vocabulary) -> None:
    """The end of the leading import block is a split point, so imports can be a chunk of their
    own (kind "imports"); the original never split there, so that kind almost never occurred."""
    last = None
    for i, n in enumerate(nodes):
        if n.type in vocab.imports:
            last = i
        elif n.type not in vocab.comments and n.type not in vocab.preamble:
            break
    if last is not None:
        flags[last] = True


def imports_end(tree: Tree) -> int:
    """Last line of the leading import block (comments may sit before and between), else -1."""
    kids = tree.kids(tree.root)
    last = -1
    for node, end in zip(kids.nodes, kids.ends, strict=True):
        if node.type in tree.vocab.imports:
            last = end
        elif node.type not in tree.vocab.comments and node.type not in tree.vocab.preamble:
            break
    return last
