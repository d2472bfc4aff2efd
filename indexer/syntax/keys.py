"""Config files as key paths: JSON, TOML and YAML vocabularies for the shared partitioner.

Every key/value pair (and TOML table, YAML document, array element) is a split point, so a big
file splits between its keys and a big array between its elements; a chunk is named by the path of
keys around it: `projects` in rush.json, `dependencies.serde` in Cargo.toml, `jobs.build` in a
workflow. Arrays are split scopes, not weak ones as in TypeScript: there a split inside an element
object (a strong split deeper down) beat one between elements, cutting rush.json's projects apart.
"""

from __future__ import annotations

from typing import Any

from monodex.indexer.syntax.table import text_of
from monodex.indexer.syntax.vocab import Vocabulary

F = frozenset
PAIRS = F({"pair", "block_mapping_pair", "flow_pair"})  # JSON and TOML, YAML block and flow
TABLES = F({"table", "table_array_element"})  # TOML `[dependencies]`, `[[bin]]`
SECTIONS = PAIRS | TABLES | {"document", "block_sequence_item"}  # YAML documents, list items
ARRAYS = F({"array", "flow_sequence"})  # JSON and TOML arrays, YAML `[a, b]`: elements are sections
_KEYS = F({"bare_key", "dotted_key", "quoted_key"})


def _meaningful(node: Any, _scale: float) -> bool:
    return node.type in SECTIONS


def _name_of(node: Any) -> str | None:
    """The key as written, a quoted key without its quotes (`"projects"` is `projects`); a dotted
    key keeps the quotes of its parts (`target.'cfg(unix)'`: stripping its ends cut one off)."""
    if node.type in PAIRS:
        key = node.child_by_field_name("key")
        if key is None:  # TOML's pair has no fields: its key is the first child
            key = next((c for c in node.named_children if c.type in _KEYS), None)
    elif node.type in TABLES:
        key = next((c for c in node.named_children if c.type in _KEYS), None)
    else:
        return None
    name = text_of(key)
    if name and key.type != "dotted_key" and len(name) > 1 and name[0] == name[-1] and name[0] in "'\"":
        name = name[1:-1]
    return name or None


def _type_of(node: Any) -> str:
    return "section" if node.type in PAIRS | TABLES else "code"


def _owner(path: list[Any], i: int) -> str | None:
    return _name_of(path[i])


def _vocabulary(name: str, prefixes: tuple[str, ...]) -> Vocabulary:
    return Vocabulary(
        name=name,
        split_scopes=F({"document", "object", "table", "table_array_element", "inline_table"})
        | {"stream", "block_mapping", "flow_mapping", "block_sequence"}
        | ARRAYS,
        weak_scopes=F(),
        elements_of=ARRAYS,
        conduits=PAIRS | {"document", "block_node", "flow_node", "block_sequence_item"},
        imports=F(),
        # No comment types: a config file's long commented-out options (rush.json is two-thirds
        # comments) split between comment blocks rather than at a middle line inside one.
        comments=F(),
        comment_prefixes=prefixes,
        meaningful=_meaningful,
        name_of=_name_of,
        type_of=_type_of,
        owner=_owner,
    )


JSON = _vocabulary("json", ("//", "/*", "*"))  # JSON with comments (tsconfig, rush.json)
TOML = _vocabulary("toml", ("#",))
YAML = _vocabulary("yaml", ("#",))
