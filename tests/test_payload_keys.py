"""Payload keys spelled once, in monodex/schema/payload.py: code that reads, writes or filters on
a payload names them as Key.X (issue 37)."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# -- payload keys: spelled once, in monodex/schema/payload.py ----------------------------------------

PAYLOAD = ROOT / "monodex" / "schema" / "payload.py"
# Words that are keys and also ordinary values or answer fields ("text" is a chunk type and a lang,
# "label" a field of many answers): spelled as strings, they are payload keys only where a payload
# is read, written or filtered on (see _key_position).
COMMON_WORDS = {
    "text",
    "catalog",
    "label",
    "lang",
    "branch",
    "key",
    "files",
    "paths",
    "mode",
    "policy",
    "current",
    "dirty",
    "pending",
    "worktree",
    "generation",
    "implementation",
}
# Strings that are a payload key's name and mean something else there.
NOT_PAYLOADS = {
    ("indexer/embed/spec.py", "embedder_id"): "a key of the model's monodex-model.json",
    ("indexer/store/edge.py", "embedder_id"): "a key of the collection's own metadata file",
    ("indexer/store/server.py", "embedder_id"): "a key of the collection's metadata on the server",
    ("indexer/store/collections.py", "embedder_id"): "a key of the collection's metadata file",
    ("indexer/upkeep/models.py", "embedder_id"): "a key of an old collection's metadata file",
}
# Rewritten by the ranking work in parallel (issue 37 keeps its hands off them, and the rank/ room
# they move to): they name payload keys through schema/payload.py once that work lands.
# search.py: only search()'s own body.
RANKING = {
    "indexer/read/signals.py",
    "indexer/read/ranking.py",
    "indexer/read/query.py",
    "indexer/read/filenames.py",
    "indexer/points/defined.py",
    "indexer/policy/generated.py",
}
RANKING_ROOM = "indexer/rank/"
RANKING_KEYS = {("indexer/read/search.py", "point_format")}


def payload_keys() -> set[str]:
    return set(re.findall(r'^\s+[A-Z_]+: Final = "([a-z_]+)"', PAYLOAD.read_text(), re.M))


def _payloadish(node: ast.expr) -> bool:
    """An expression that holds a payload: `payload`, `rec.payload`, `meta`-less names end so."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.endswith("payload")


def _common_words_as_keys(tree: ast.AST) -> list[ast.Constant]:
    """Strings used as payload keys: payload["k"], payload.get("k"), Match("k", ...), payload_keys=
    ("k", ...), and the keys of a dict that builds a point (it has source_type) or is set_payload's."""
    found: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _payloadish(node.value):
            found.append(node.slice)
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in ("get", "pop") and _payloadish(func.value):
                found += node.args[:1]
            if isinstance(func, ast.Name) and func.id in ("Match", "MatchAny", "IsEmpty"):
                found += node.args[:1]
            if isinstance(func, ast.Attribute) and func.attr == "set_payload" and len(node.args) > 1:
                if isinstance(node.args[1], ast.Dict):
                    found += [k for k in node.args[1].keys if k is not None]
            for kw in node.keywords:
                if kw.arg == "payload_keys" and isinstance(kw.value, ast.Tuple):
                    found += kw.value.elts
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
            names = {ast.unparse(k) for k in keys}
            if names & {"'source_type'", "Key.SOURCE_TYPE"}:
                found += keys
    return [n for n in found if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def _spelled_keys(file: Path, keys: set[str]) -> list[tuple[str, int, str]]:
    """Payload keys spelled as strings in `file`: a key that is no common word wherever it stands as
    a string of its own, a common word where it is used as a payload's key."""
    text = file.read_text()
    rel = str(file.relative_to(ROOT))
    strings = [
        (t.start[0], t.string[1:-1])
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type == tokenize.STRING and t.string[:1] in "'\"" and t.string[:3] not in ('"""', "'''")
    ]
    found = [(line, value) for line, value in strings if value in keys - COMMON_WORDS]
    found += [
        (n.lineno, n.value) for n in _common_words_as_keys(ast.parse(text)) if n.value in keys & COMMON_WORDS
    ]
    allowed = NOT_PAYLOADS.keys() | RANKING_KEYS
    return sorted((rel, line, value) for line, value in found if (rel, value) not in allowed)


def test_payload_keys_are_spelled_only_in_the_schema() -> None:
    """Code that reads, writes or filters on a payload names its keys as schema.payload.Key.X. The
    front reads answers (TypedDicts whose keys mypy checks), never a payload, so it is not looked at."""
    keys = payload_keys()
    assert {"file_id", "active_label_ids", "dense_pending", "commit_oid", "path_prefixes"} <= keys
    spelled = [
        hit
        for folder in ("indexer", "scheduler", "hooks")
        for f in sorted((ROOT / folder).rglob("*.py"))
        if str(f.relative_to(ROOT)) not in RANKING and not str(f.relative_to(ROOT)).startswith(RANKING_ROOM)
        for hit in _spelled_keys(f, keys)
    ]
    assert spelled == []


def test_the_payload_typeddicts_use_only_declared_keys() -> None:
    from typing import get_type_hints

    from monodex.schema import payload

    keys = payload_keys()
    for kind in (payload.ChunkPayload, payload.LabelFacts, payload.MembershipFacts, payload.OverlayPayload):
        assert set(get_type_hints(kind)) <= keys, kind.__name__
    assert set(payload.HIT_FIELDS) <= set(get_type_hints(payload.ChunkPayload))
