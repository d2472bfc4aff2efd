"""What changed between two labels, from membership alone (issue 24): no git checkout, no
re-chunking. A file version is one file_id; the versions one label holds and the other does not
are the sentinels (chunk 1) held by the first and not the second, so the answer reads the files
that differ (and then their chunks), never the files both labels share.

A path on both sides is changed, on one side only added or removed. Inside a changed file, chunks
are compared by symbol (breadcrumb) and text (content_hash): a symbol whose chunks kept their
text is unchanged even though its file is a new version."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.points import filters as stored
from monodex.indexer.points import membership
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.store.base import Match, MatchAny, Store

from monodex.schema import compare as answer
from monodex.schema.payload import Key
from monodex.schema.search import Hit

_FILE_BATCH = 256
_SENTINEL_KEYS = (Key.FILE_ID, Key.RELATIVE_PATH, Key.PACKAGE_NAME)
_CHUNK_KEYS = (
    Key.FILE_ID,
    Key.CHUNK_ORDINAL,
    Key.BREADCRUMB,
    Key.SYMBOL_NAME,
    Key.CONTENT_HASH,
    Key.START_LINE,
    Key.END_LINE,
)


@dataclass
class FileChange:
    path: str
    change: str  # added | removed | changed
    package: str | None
    from_file_id: str | None
    to_file_id: str | None
    symbols: list[answer.Symbol] = field(default_factory=list)
    chunks_added: int = 0
    chunks_removed: int = 0
    # (file_id, chunk_ordinal) of the chunks whose text the other side lacks: a search hit
    # counts for --text only on one of these
    touched: set[tuple[str, int]] = field(default_factory=set)

    def as_json(self, *, score: float | None = None) -> answer.FileChange:
        """The change as `diff` prints it; `score`: its relevance to the question asked."""
        out: answer.FileChange = {
            "path": self.path,
            "change": self.change,
            "package": self.package,
            "from_file_id": self.from_file_id,
            "to_file_id": self.to_file_id,
            "chunks_added": self.chunks_added,
            "chunks_removed": self.chunks_removed,
            "symbols": self.symbols,
        }
        if score is not None:
            out["score"] = score
        return out


def only_in(
    store: Store, held: str, not_held: str, *, paths: tuple[str, ...] = ()
) -> dict[str, dict[str, Any]]:
    """{path: sentinel payload} of the file versions `held` has and `not_held` has not (under
    `paths` when given: folders or files)."""
    under = (MatchAny(Key.PATH_PREFIXES, paths),) if paths else ()
    flt = stored.labels_chunks(
        (membership.of(store, held),),
        Match(Key.CHUNK_ORDINAL, 1),
        *under,
        without=(membership.of(store, not_held),),
    )
    return {
        str(r.payload[Key.RELATIVE_PATH]): r.payload for r in store.scroll(flt, payload_keys=_SENTINEL_KEYS)
    }


def files(store: Store, old: LabelState, new: LabelState, *, paths: tuple[str, ...] = ()) -> list[FileChange]:
    """Every file that differs between the labels (under `paths`), with its symbols and chunk
    counts."""
    gone = only_in(store, old.label_id, new.label_id, paths=paths)
    came = only_in(store, new.label_id, old.label_id, paths=paths)
    changes = []
    for path in sorted(gone.keys() | came.keys()):
        before, after = gone.get(path), came.get(path)
        kind = "changed" if before and after else ("removed" if before else "added")
        package = (after or before or {}).get(Key.PACKAGE_NAME)
        changes.append(
            FileChange(
                path,
                kind,
                package,
                str(before[Key.FILE_ID]) if before else None,
                str(after[Key.FILE_ID]) if after else None,
            )
        )
    chunks = _chunks(store, [fid for c in changes for fid in (c.from_file_id, c.to_file_id) if fid])
    for c in changes:
        _compare(c, chunks.get(c.from_file_id or "", []), chunks.get(c.to_file_id or "", []))
    return changes


def _chunks(store: Store, file_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for i in range(0, len(file_ids), _FILE_BATCH):
        flt = stored.chunks(MatchAny(Key.FILE_ID, tuple(file_ids[i : i + _FILE_BATCH])))
        for rec in store.scroll(flt, payload_keys=_CHUNK_KEYS):
            out[str(rec.payload[Key.FILE_ID])].append(rec.payload)
    for found in out.values():
        found.sort(key=lambda p: int(p[Key.CHUNK_ORDINAL]))
    return out


def _by_symbol(chunks: list[dict[str, Any]], path: str) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for c in chunks:
        out[str(c.get(Key.BREADCRUMB) or path)].append(c)
    return out


def _span(chunks: list[dict[str, Any]]) -> list[int] | None:
    return [int(chunks[0][Key.START_LINE]), int(chunks[-1][Key.END_LINE])] if chunks else None


def _compare(change: FileChange, before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """Fill the change's symbols and chunk counts from the two versions' chunks."""
    old_texts = Counter(str(c.get(Key.CONTENT_HASH)) for c in before)
    new_texts = Counter(str(c.get(Key.CONTENT_HASH)) for c in after)
    change.chunks_added = sum((new_texts - old_texts).values())
    change.chunks_removed = sum((old_texts - new_texts).values())
    change.touched = {_key(c) for c in after if str(c.get(Key.CONTENT_HASH)) not in old_texts}
    change.touched |= {_key(c) for c in before if str(c.get(Key.CONTENT_HASH)) not in new_texts}
    old_syms, new_syms = _by_symbol(before, change.path), _by_symbol(after, change.path)
    for name in sorted(old_syms.keys() | new_syms.keys()):
        was, now = old_syms.get(name, []), new_syms.get(name, [])
        if [c.get(Key.CONTENT_HASH) for c in was] == [c.get(Key.CONTENT_HASH) for c in now]:
            continue
        kind = "changed" if was and now else ("removed" if was else "added")
        symbol = (now or was)[0].get(Key.SYMBOL_NAME)
        change.symbols.append(
            answer.Symbol(
                breadcrumb=name, symbol=symbol, change=kind, from_lines=_span(was), to_lines=_span(now)
            )
        )


def _key(chunk: dict[str, Any]) -> tuple[str, int]:
    return str(chunk[Key.FILE_ID]), int(chunk[Key.CHUNK_ORDINAL])


def packages(changes: Sequence[FileChange]) -> list[answer.PackageChanges]:
    """Per package (its package.json name; null outside any): how many files were added,
    removed and changed."""
    counts: dict[str | None, Counter[str]] = defaultdict(Counter)
    for c in changes:
        counts[c.package][c.change] += 1
    return [
        {"package": p, "added": n["added"], "removed": n["removed"], "changed": n["changed"]}
        for p, n in sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or ""))
    ]


def summary(changes: Sequence[FileChange]) -> answer.Summary:
    kinds = Counter(c.change for c in changes)
    return {
        "files_added": kinds["added"],
        "files_removed": kinds["removed"],
        "files_changed": kinds["changed"],
        "chunks_added": sum(c.chunks_added for c in changes),
        "chunks_removed": sum(c.chunks_removed for c in changes),
    }


def rank(changes: list[FileChange], hits: Sequence[Hit]) -> list[tuple[FileChange, float]]:
    """The changes a search found, best first: `hits` are search results over the chunks each
    side holds and the other does not; a hit counts only on a chunk the change touched (not on a
    chunk a changed file kept as it was). Each symbol a hit falls in gains the hit's `score`."""
    by_file = {fid: c for c in changes for fid in (c.from_file_id, c.to_file_id) if fid}
    best: dict[str, float] = {}
    for hit in hits:
        key = hit[Key.FILE_ID], hit[Key.CHUNK_ORDINAL]
        c = by_file.get(key[0])
        if c is None or key not in c.touched:
            continue
        score = float(hit["score"])
        best[c.path] = max(best.get(c.path, 0.0), score)
        for s in c.symbols:
            if s[Key.BREADCRUMB] == (hit.get(Key.BREADCRUMB) or c.path):
                s["score"] = max(s.get("score", 0.0), round(score, 4))
    ranked = [(c, best[c.path]) for c in changes if c.path in best]
    return sorted(ranked, key=lambda cs: (-cs[1], cs[0].path))
