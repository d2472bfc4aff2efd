"""Hand-written questions for `monodex eval --questions FILE`: JSON lines, one question a line,

    {"query": "where are retries backed off", "relevant": ["src/retry.ts"], "id": "q1", "kind": "concept"}

or one JSON document `{"queries": [...]}` of the same objects (bench/eval/*.json). `id` and `kind`
are optional (without an id, one is made from the query, so a question keeps its split as the
file grows), and so is `lines` (`{"src/retry.ts": [[40, 62]]}`: where in a relevant file the
answer is, 1-based and inclusive, for the figure scored on lines); other keys are ignored. A bad
entry is an error naming its line or index.
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
    out: dict[str, Any] = {
        "id": str(qid) if qid is not None else made,
        "query": query.strip(),
        "relevant": sorted(dict.fromkeys(paths)),
        "kind": kind.strip() if kind else None,
    }
    if entry.get("lines") is not None:
        out["lines"] = _lines(where, entry["lines"], set(paths))
    return out


LINES = '"lines": {"src/retry.ts": [[40, 62]]}'


def _lines(where: str, value: Any, relevant: set[str]) -> dict[str, list[list[int]]]:
    """Where the answer is in each relevant file that says: {path: [[first, last], ...]}, 1-based."""
    if not isinstance(value, dict):
        raise UsageError(f'{where}: "lines" must be an object of paths to line spans', f"write {LINES}")
    out: dict[str, list[list[int]]] = {}
    for key, spans in value.items():
        path = _path(where, key) if isinstance(key, str) else ""
        if path not in relevant:
            raise UsageError(
                f'{where}: "lines" names {key!r}, which is not one of its "relevant" paths',
                'give lines for the relevant files only, spelled as in "relevant"',
            )
        ok = (
            isinstance(spans, list)
            and spans
            and all(
                isinstance(sp, list)
                and len(sp) == 2
                and all(isinstance(n, int) and not isinstance(n, bool) for n in sp)
                and 1 <= sp[0] <= sp[1]
                for sp in spans
            )
        )
        if not ok:
            raise UsageError(
                f"{where}: the lines of {key!r} must be a list of [first, last] line numbers (1-based, "
                f"first <= last), got {json.dumps(spans)[:80]}",
                f"write {LINES}",
            )
        out[path] = [[int(a), int(b)] for a, b in spans]
    return out


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
