"""What a chunk is about: chunk_type and a qualified symbol (reference §2.6, improved).

The describing node is the smallest meaningful node whose lines contain the chunk; its name, or
the nearest named meaningful ancestor's, is qualified by what its vocabulary says owns names (for
TypeScript: classes, interfaces, namespaces and object literals): `JsonFile.load`,
`IOptions.timeout`, `eventHandlers.onChange`; `impl Foo.method` in Rust, `jobs.build` in YAML.
"""

from __future__ import annotations

from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.syntax.tree import Tree


def kind_and_symbol(tree: Tree, lines: Lines, start: int, end: int) -> tuple[str, str | None]:
    """(chunk_type, qualified symbol) of the chunk covering lines [start, end] (0-based)."""
    vocab = tree.vocab
    start, end = _core(lines, start, end, vocab.comment_prefixes)
    start, end = _core(lines, *_subject(tree, start, end), vocab.comment_prefixes)  # its own ends
    path = tree.containing_path(start, end)
    smallest = next((i for i in range(len(path) - 1, 0, -1) if vocab.meaningful(path[i], tree.scale)), None)
    if smallest is None:
        return "code", None
    for i in range(smallest, 0, -1):
        if vocab.meaningful(path[i], tree.scale) and (symbol := vocab.name_of(path[i])):
            owners = (vocab.owner(path, j) for j in range(i))
            return vocab.type_of(path[i]), ".".join([*(o for o in owners if o), symbol])
    return vocab.type_of(path[smallest]), None


def _subject(tree: Tree, start: int, end: int) -> tuple[int, int]:
    """A chunk of top-level statements that names one declaration is about it: the imports before
    the first function (Go's `Alpha`, Python's `alpha` lost their names to the file when merged with
    them), a comment or a re-export after a class's last methods. Two named ones: about neither."""
    kids, vocab = tree.kids(tree.root), tree.vocab
    found = tree.overlapping(tree.root, start, end)
    if len(found) < 2:
        return start, end
    named = [i for i in found if kids.nodes[i].type not in vocab.imports and vocab.name_of(kids.nodes[i])]
    if len(named) != 1:
        return start, end
    return max(start, kids.starts[named[0]]), min(end, kids.ends[named[0]])


def _core(lines: Lines, start: int, end: int, comment: tuple[str, ...]) -> tuple[int, int]:
    """The lines that say what a chunk is about. Splits fall right after a declaration, so a chunk
    usually starts with the next one's doc comment, and one that ends a class carries its closing
    brace: leading comments, blank lines and trailing closing punctuation do not count."""
    while start < end and _is_comment_or_blank(lines.lines[start], comment):
        start += 1
    while end > start and not lines.lines[end].strip().strip("});,]"):
        end -= 1
    return start, end


def _is_comment_or_blank(line: str, comment: tuple[str, ...]) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(comment)
