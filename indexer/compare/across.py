"""Questions across labels (issue 24): which labels a search reads (`--labels GLOB`,
`--all-labels`), which labels hold each hit and which hold another version of its file, and where
a file version or a chunk exists (`labels --containing`).

Every answer reads membership through points/membership.py, and only for what the answer names:
the hits' files, or the one path asked about."""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import cast

from monodex.indexer.points import filters as stored
from monodex.indexer.points import labelmeta, membership
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.points.membership import Held
from monodex.indexer.store.base import Match, MatchAny, Store

from monodex import names
from monodex.errors import MonodexError, UsageError
from monodex.schema.compare import ChunkAt, ContainingAnswer, Version
from monodex.schema.payload import Key
from monodex.schema.search import Hit, OtherVersion

_PATH_BATCH = 256


def select(store: Store, catalog: str, globs: Sequence[str], *, every: bool) -> list[LabelState]:
    """The catalog's labels matching any glob (`*` crosses `/`: `release/*`), or all of them."""
    if store.info() is None:
        raise MonodexError("the index is empty", f"index a label of {catalog!r} first with 'monodex crawl'")
    known = labelmeta.list_all(store, catalog)
    if every:
        chosen = known
    else:
        chosen = [st for st in known if any(fnmatch.fnmatchcase(st.label, g) for g in globs)]
        for g in globs:
            if not any(fnmatch.fnmatchcase(st.label, g) for st in known):
                raise UsageError(
                    f"no label of catalog {catalog!r} matches {g!r}",
                    "labels there: " + (", ".join(st.label for st in known) or "none yet"),
                )
    if not chosen:
        raise UsageError(f"catalog {catalog!r} has no indexed label", "index one with 'monodex crawl'")
    return chosen


def _label(label_id: str) -> str:
    return label_id.partition(":")[2]


def annotate(store: Store, results: list[Hit], held: Sequence[Held]) -> None:
    """Each hit gains `labels` (the searched labels holding its chunk) and `other_versions`
    ([{"label", "file_id"}]: searched labels holding a different version of its file); `held`:
    the searched labels' membership, as the search read it."""
    searched = {h.label_id for h in held}
    paths = sorted({str(r[Key.RELATIVE_PATH]) for r in results})
    versions = _versions(store, paths, held)
    for r in results:
        holders = versions[str(r[Key.RELATIVE_PATH])]
        r["labels"] = sorted(_label(lid) for lid in holders.get(str(r[Key.FILE_ID]), ()) if lid in searched)
        r["other_versions"] = _others((fid, lids) for fid, lids in holders.items() if fid != r[Key.FILE_ID])


def _others(versions: Iterable[tuple[str, list[str]]]) -> list[OtherVersion]:
    """The labels holding each version, one row a label, by label."""
    rows = [OtherVersion(label=_label(x), file_id=fid) for fid, lids in versions for x in lids]
    return sorted(rows, key=lambda o: (o["label"], o[Key.FILE_ID]))


def _versions(store: Store, paths: Sequence[str], held: Sequence[Held]) -> dict[str, dict[str, list[str]]]:
    """{path: {file_id: label ids among `held` holding that version}}, from the sentinels."""
    out: dict[str, dict[str, list[str]]] = defaultdict(dict)
    for i in range(0, len(paths), _PATH_BATCH):
        part = tuple(paths[i : i + _PATH_BATCH])
        flt = stored.labels_chunks(held, MatchAny(Key.RELATIVE_PATH, part), Match(Key.CHUNK_ORDINAL, 1))
        for rec in store.scroll(flt, payload_keys=membership.KEYS):
            lids = membership.labels_of(rec.payload, held)
            out[str(rec.payload[Key.RELATIVE_PATH])][str(rec.payload[Key.FILE_ID])] = lids
    return out


def containing(
    store: Store,
    catalog: str,
    *,
    file_id: str | None,
    path: str | None,
    line: int | None = None,
    ordinal: int | None = None,
    label: str | None = None,
    here: str | None = None,
) -> ContainingAnswer:
    """Which labels of the catalog hold a file version (FILE_ID, or PATH as `label` has it, else
    as `here`, the label where you stand, has it when it does), or a chunk (FILE_ID:N,
    PATH:LINE): `labels` hold it exactly, `other_versions` lists the labels holding the path
    with other content ([{"label", "file_id"}]), `versions` every version."""
    states = labelmeta.list_all(store, catalog)
    if not states:
        raise UsageError(f"catalog {catalog!r} has no indexed label", "index one with 'monodex crawl'")
    every = membership.many_from_metadata([(st.label_id, st.extra) for st in states], store)
    if file_id is not None:
        path = _path_of(store, file_id, every)
    assert path is not None
    versions = _versions(store, [path], every).get(path, {})
    if not versions:
        raise UsageError(
            f"{path} is in no label of catalog {catalog!r}",
            "check the path (relative to the repository root); 'monodex labels' lists the labels",
        )
    if file_id is None:
        file_id = _version_of(versions, catalog, path, label, here)
    # built in the order it is printed: the chunk asked about (if one was) before its holders
    answer = cast(ContainingAnswer, {"catalog": catalog, Key.RELATIVE_PATH: path, Key.FILE_ID: file_id})
    if line is None and ordinal is None:
        held = versions.get(file_id, [])
        others = {fid: lids for fid, lids in versions.items() if fid != file_id}
    else:
        answer["chunk"], held, others = _chunk_holders(store, path, file_id, (line, ordinal), versions)
    answer["labels"] = sorted(_label(x) for x in held)
    answer["other_versions"] = _others(others.items())
    answer["versions"] = [
        Version(file_id=fid, labels=sorted(_label(x) for x in lids)) for fid, lids in sorted(versions.items())
    ]
    return answer


def _path_of(store: Store, file_id: str, held: Sequence[Held]) -> str:
    flt = stored.labels_chunks(held, Match(Key.FILE_ID, file_id))
    for rec in store.scroll(flt, payload_keys=(Key.RELATIVE_PATH,), batch=1):
        return str(rec.payload[Key.RELATIVE_PATH])
    raise UsageError(
        f"file {file_id} is in no label of this catalog",
        "take a file_id from 'monodex search' results (labels removed since may have taken it)",
    )


def _version_of(
    versions: dict[str, list[str]], catalog: str, path: str, label: str | None, here: str | None
) -> str:
    """The version of `path` that `label` holds; with no label, the one the label where you stand
    (`here`) holds, else the only version there is."""
    for name in (label, here):
        lid = names.label_id(catalog, name) if name is not None else ""
        found = next((fid for fid, lids in versions.items() if lid in lids), None)
        if found is not None:
            return found
        if label is not None:
            raise UsageError(
                f"{path} is not in label {label!r}", "name a label that holds it, or give a file_id"
            )
    if len(versions) == 1:
        return next(iter(versions))
    mine = f"; the label checked out where you stand ({here}) holds none of them" if here else ""
    raise UsageError(
        f"{path} has {len(versions)} versions across the labels of catalog {catalog!r}{mine}",
        "pass --label to say which label's version you mean (or give its file_id)",
    )


def _chunk_holders(
    store: Store, path: str, file_id: str, at: tuple[int | None, int | None], versions: dict[str, list[str]]
) -> tuple[ChunkAt, list[str], dict[str, list[str]]]:
    """The chunk of `file_id` covering line `at[0]` (or numbered `at[1]`), and which versions hold
    the same text at the same path and symbol: a chunk a change left alone is the same chunk."""
    line, ordinal = at
    keys = (Key.FILE_ID, Key.CHUNK_ORDINAL, Key.START_LINE, Key.END_LINE, Key.BREADCRUMB, Key.CONTENT_HASH)
    chunks = list(store.scroll(stored.chunks(Match(Key.RELATIVE_PATH, path)), payload_keys=keys))
    mine = [c.payload for c in chunks if c.payload[Key.FILE_ID] == file_id]
    if line is None:
        target = next((c for c in mine if c[Key.CHUNK_ORDINAL] == ordinal), None)
    else:
        target = next((c for c in mine if c[Key.START_LINE] <= line <= c[Key.END_LINE]), None)
    if target is None:
        last = max((int(c[Key.END_LINE]) for c in mine), default=0)
        what = f"line {line}" if line is not None else f"chunk {ordinal}"
        raise UsageError(
            f"{path} (file {file_id}) has no {what}", f"it has lines 1-{last} in {len(mine)} chunks"
        )
    same = {
        str(c.payload[Key.FILE_ID])
        for c in chunks
        if c.payload.get(Key.CONTENT_HASH) == target.get(Key.CONTENT_HASH)
        and c.payload.get(Key.BREADCRUMB) == target.get(Key.BREADCRUMB)
    }
    held = [x for fid in same for x in versions.get(fid, [])]
    others = {fid: lids for fid, lids in versions.items() if fid not in same}
    chunk = ChunkAt(
        chunk_ordinal=target[Key.CHUNK_ORDINAL],
        start_line=target[Key.START_LINE],
        end_line=target[Key.END_LINE],
        breadcrumb=target.get(Key.BREADCRUMB),
    )
    return chunk, held, others
