"""Hand-written questions for `monodex eval --questions FILE`: JSON lines, one question a line,

    {"query": "where are retries backed off", "relevant": ["src/retry.ts"], "id": "q1", "kind": "concept"}

or one JSON document `{"queries": [...]}` of the same objects (bench/eval/*.json). `id` and `kind`
are optional (without an id, one is made from the query, so a question keeps its split as the
file grows); other keys are ignored. A bad entry is an error naming its line or index.
Stdlib only: the CLI checks the file before anything else runs, and the request re-checks what
arrives over the runner's socket with the same code."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from monodex.errors import UsageError

SHAPE = '{"query": "...", "relevant": ["path/in/repo.ts", ...], "id": "...", "kind": "concept"}'


def read(path: Path) -> dict[str, Any]:
    """The file's questions as the document the request carries: {"source", "queries"}."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        problem = f"cannot read the questions file {path}: {e}"
        raise UsageError(problem, f"give a file of one question a line: {SHAPE}") from e
    return {"source": path.name, "queries": parse(text, path.name)}


def parse(text: str, source: str) -> list[dict[str, Any]]:
    """Normalised questions ({"id", "query", "relevant", "kind"}) of a file's text."""
    try:
        whole, broken = json.loads(text), None
    except json.JSONDecodeError as e:
        whole, broken = None, e
    if isinstance(whole, dict) and "queries" in whole:
        return check(whole["queries"], source)
    if isinstance(whole, list):
        return check(whole, source)
    entries: list[tuple[str, Any]] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append((f"{source} line {n}", json.loads(line)))
        except json.JSONDecodeError as e:
            # a document spread over lines: say where it breaks, not that its first line does
            bad = broken if not entries and broken is not None and broken.lineno > n else e
            raise UsageError(
                f"{source} line {bad.lineno if bad is broken else n}: not JSON ({bad.msg})",
                f'write one question a line, {SHAPE}, or one document {{"queries": [...]}}',
            ) from e
    if not entries:
        raise UsageError(f"{source} holds no question", f"write one a line: {SHAPE}")
    return _normalised(entries)


def check(queries: Any, source: str) -> list[dict[str, Any]]:
    """A document's `queries` list, each entry checked and normalised."""
    if not isinstance(queries, list) or not queries:
        raise UsageError(f'{source}: "queries" must be a list of questions', f"each one {SHAPE}")
    return _normalised([(f"{source} queries[{i}]", q) for i, q in enumerate(queries)])


def _normalised(entries: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    where_id: dict[str, str] = {}
    for where, entry in entries:
        q = _one(where, entry)
        if q["id"] in where_id:
            raise UsageError(
                f"{where}: the question id {q['id']!r} is also the one of {where_id[q['id']]}",
                "give each question its own id (or drop the repeated question)",
            )
        where_id[q["id"]] = where
        out.append(q)
    return out


def _one(where: str, entry: Any) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise UsageError(f"{where}: expected an object, got {type(entry).__name__}", f"write {SHAPE}")
    query, relevant = entry.get("query"), entry.get("relevant")
    if not isinstance(query, str) or not query.strip():
        raise UsageError(f'{where}: "query" must be a non-empty string', f"write {SHAPE}")
    if not isinstance(relevant, list) or not relevant or not all(isinstance(p, str) for p in relevant):
        raise UsageError(f'{where}: "relevant" must be a non-empty list of paths', f"write {SHAPE}")
    paths = [_path(where, p) for p in relevant]
    qid, kind = entry.get("id"), entry.get("kind")
    if isinstance(qid, bool) or (qid is not None and not isinstance(qid, str | int)):
        raise UsageError(f'{where}: "id" must be a string or a number', "give each question a short name")
    if kind is not None and (not isinstance(kind, str) or not kind.strip()):
        raise UsageError(f'{where}: "kind" must be a non-empty string', "concept, architecture, symbol, ...")
    made = "q-" + hashlib.sha256(query.strip().encode()).hexdigest()[:10]
    return {
        "id": str(qid) if qid is not None else made,
        "query": query.strip(),
        "relevant": sorted(dict.fromkeys(paths)),
        "kind": kind.strip() if kind else None,
    }


def _path(where: str, value: str) -> str:
    """A path relative to the repository root, in the index's spelling."""
    p = value.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    if not p or p.startswith(("/", "../")) or p == "..":
        raise UsageError(
            f'{where}: "relevant" holds {value!r}, not a path inside the repository',
            "write paths relative to the repository root (src/retry.ts)",
        )
    return p
