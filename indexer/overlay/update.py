"""A worktree's overlay brought up to date when a search from it starts (DESIGN.md "overlay").

`git status` names the dirty paths; the stat cache (git/statcache.py) gives their blob ids,
reading only files that changed since the last search; when the overlay already holds exactly
those files nothing else happens (one status, a few lstat calls and one point read). Otherwise
phase one of a crawl stores the dirty files under a new generation's membership (chunks and
lexical vectors, stored dense vectors reused; the rest pending for the runner's fill job), then
one upsert of the overlay's metadata switches searches to it, then the previous generation's
membership is removed (points/overlaymeta.py says why this is atomic). The branch's label is
never written.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from monodex.indexer.git.plan import text_problem
from monodex.indexer.git.sources import SourceFile
from monodex.indexer.git.worktree import read as read_file
from monodex.indexer.members import keys as membership
from monodex.indexer.overlay import statcache
from monodex.indexer.packages.lookup import PackageIndex, package_of
from monodex.indexer.points import filters, overlaymeta
from monodex.indexer.points import membership as members
from monodex.indexer.points.identity import git_blob_sha1
from monodex.indexer.points.overlaymeta import OverlayFile, OverlayState
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.policy.crawlpolicy import CrawlPolicy
from monodex.indexer.session import Session
from monodex.indexer.store.base import Match, Store
from monodex.indexer.write.crawl import Crawl, CrawlSettings, file_info
from monodex.indexer.write.request import Request

from monodex import names
from monodex.disk import jsonfile
from monodex.errors import UsageError
from monodex.git import files as gitfiles
from monodex.git import status as gitstatus
from monodex.labels import branchlabels
from monodex.observe import logs
from monodex.schema.payload import Key
from monodex.schema.search import Overlay
from monodex.settings.config import Catalog


@dataclass
class Applied:
    """What a search lays over its label, and what bringing it up to date cost."""

    worktree: str
    membership: str = ""  # the overlay generation's label id; "" when nothing is dirty
    hidden: tuple[str, ...] = ()  # file ids of the label's files at dirty paths
    files: int = 0  # dirty files indexed in the overlay
    paths: int = 0  # dirty paths (changed, added, deleted) whose label files are hidden
    seconds: float = 0.0
    updated: bool = False  # this search re-indexed something
    files_read: int = 0  # files read to hash them (0 when nothing changed)
    dense_pending: int = 0
    skipped: str = ""  # why no overlay was applied

    def as_json(self) -> Overlay:
        out: Overlay = {
            "applied": not self.skipped,
            "worktree": self.worktree,
            "files": self.files,
            "paths": self.paths,
            "seconds": round(self.seconds, 4),
            "updated": self.updated,
            "files_read": self.files_read,
            Key.DENSE_PENDING: self.dense_pending,
        }
        if self.skipped:
            out["skipped"] = self.skipped
        return out


@dataclass
class _Wanted:
    status: gitstatus.Status
    dirty: tuple[str, ...]
    blobs: dict[str, str]
    contents: dict[str, bytes] = field(default_factory=dict)


def apply(s: Session, catalog: Catalog, label: str, worktree: str) -> Applied:
    """The overlay of `worktree` over `label`, current with the disk, for one search."""
    t0 = time.monotonic()
    root = _worktree_root(catalog, worktree)
    out = Applied(str(root))
    wanted, policy = _scan(s, catalog, root, out)
    branch = wanted.status.branch
    if s.store.info() is None:
        out.skipped = "nothing is indexed yet"
    elif branch is None or _label_of(s, catalog, branch) != label:
        on = f"branch {branch!r}" if branch else "a detached HEAD"
        out.skipped = f"the worktree is on {on}, not on the branch of label {label!r}"
    else:
        key = overlaymeta.key_for(str(root))
        with _locked(s, key):
            state = _current(s, catalog, label, root, key, wanted, policy, out)
        if state is not None:
            _describe(s.store, names.label_id(catalog.name, label), state, out)
    out.seconds = time.monotonic() - t0
    return out


def _describe(store: Store, label_id: str, state: OverlayState, out: Applied) -> None:
    """What the search lays over the label: the overlay's membership, and the label's files at
    the dirty paths hidden (read now: the label may have moved since the overlay was stored)."""
    out.membership, out.files, out.paths = state.current, len(state.file_ids), len(state.dirty)
    held = members.of(store, label_id)
    out.hidden = tuple(sorted(membership.files_at(store, held, state.dirty) - state.file_ids))
    if state.current:
        own = members.Held(state.current, state.current)
        out.dense_pending = store.count(filters.label_chunks(own, Match(Key.DENSE_PENDING, True)))


def _label_of(s: Session, catalog: Catalog, branch: str) -> str | None:
    try:
        return branchlabels.of_repo(catalog.name, catalog.path, s.paths.state_dir).label(branch)
    except UsageError:
        return None


def _worktree_root(catalog: Catalog, worktree: str) -> Path:
    path = Path(os.path.realpath(worktree))
    root = gitfiles.top(path) if path.is_dir() else None
    if root is None:
        raise UsageError(
            f"worktree {worktree} is not a git worktree (or no longer exists)",
            "pass the folder of a checkout of the catalog's repository, or search with --committed",
        )
    common = gitfiles.common_dir(root)
    if common is None or common != gitfiles.common_dir(catalog.path):
        raise UsageError(
            f"worktree {root} is not a checkout of catalog {catalog.name!r} ({catalog.path})",
            "search from one of that repository's worktrees, or pass the right --catalog",
        )
    return root


def _cache_file(s: Session, key: str) -> Path:
    return s.paths.state_dir / "overlay" / f"{key}.json"


def _scan(s: Session, catalog: Catalog, root: Path, out: Applied) -> tuple[_Wanted, CrawlPolicy]:
    status = gitstatus.status(root)
    policy = crawlpolicy.load(catalog.path, s.paths)
    crawlable = tuple(sorted(p for p in status.paths if policy.should_crawl(p)))
    cache_file = _cache_file(s, overlaymeta.key_for(str(root)))
    cache = _read_cache(cache_file)
    found = statcache.scan(root, crawlable, cache, max_bytes=policy.byte_limit)
    if found.changed:
        jsonfile.write_atomic(cache_file, cache)
    out.files_read = found.hashed
    return _Wanted(status, crawlable, found.blobs, found.contents), policy


def _read_cache(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


@contextlib.contextmanager
def _locked(s: Session, key: str) -> Iterator[None]:
    """One update of a worktree's overlay at a time, across the runner's threads and processes."""
    lock = s.paths.state_dir / "overlay" / f"{key}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+b") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _current(
    s: Session,
    catalog: Catalog,
    label: str,
    root: Path,
    key: str,
    wanted: _Wanted,
    policy: CrawlPolicy,
    out: Applied,
) -> OverlayState | None:
    """The overlay's state after making it hold `wanted` (None: nothing dirty, no overlay)."""
    store = s.store
    state = overlaymeta.read(store, catalog.name, key)
    held = {f.path: f.blob_id for f in state.files} if state else {}
    same = (
        state is not None
        and state.label == label
        and not state.pending
        and set(state.dirty) == set(wanted.dirty)
    )
    if (same and held == wanted.blobs) or (state is None and not wanted.dirty):
        return state
    out.updated = True
    base = replace(state, label=label) if state else OverlayState(catalog.name, key, str(root), label, None)
    return update(s, catalog, base, wanted, policy)


def update(
    s: Session, catalog: Catalog, state: OverlayState, wanted: _Wanted, policy: CrawlPolicy
) -> OverlayState | None:
    """The generation protocol: announce, store, switch, clean (each step safe to stop after)."""
    store = s.store
    info = store.info()
    assert info is not None  # apply() checked: something is indexed
    dim = info.dim  # the model is loaded only when there are files to index
    gen = state.generation + 1
    new = overlaymeta.membership(catalog.name, state.key, gen)
    state = overlaymeta.write(store, replace(state, generation=gen, pending=(*state.pending, new)), dim=dim)
    log = logs.get("monodex.overlay")
    log.debug("overlay.updating", worktree=state.worktree, membership=new, files=len(wanted.blobs))
    files = _index(s, catalog, root=Path(state.worktree), member=new, wanted=wanted, policy=policy)
    current = new if any(f.file_id for f in files) else ""
    leftover = tuple(m for m in (state.current, *state.pending) if m and m != current)
    state = replace(
        state,
        branch=wanted.status.branch,
        current=current,
        files=tuple(files),
        dirty=wanted.dirty,
        pending=leftover,
    )
    state = overlaymeta.write(store, state, dim=dim)
    log.debug("overlay.switched", worktree=state.worktree, membership=current, files=len(files))
    return _clean(store, state, dim=dim)


def _clean(store: Store, state: OverlayState, *, dim: int) -> OverlayState | None:
    """Memberships of earlier generations removed (chunks only they held deleted)."""
    for m in state.pending:
        membership.remove_label(store, m)
    if not state.dirty:
        overlaymeta.delete(store, state)  # a clean worktree: no overlay left
        return None
    return overlaymeta.write(store, replace(state, pending=()), dim=dim)


def drop(store: Store, state: OverlayState) -> int:
    """Remove an overlay: its memberships (chunks only it held deleted), then its metadata."""
    removed = 0
    for m in {state.current, *state.pending} - {""}:
        removed += membership.remove_label(store, m).points_deleted
    overlaymeta.delete(store, state)
    return removed


def _index(
    s: Session, catalog: Catalog, *, root: Path, member: str, wanted: _Wanted, policy: CrawlPolicy
) -> list[OverlayFile]:
    """Phase one of the dirty files under `member`; each file with the id it is stored under."""
    if not wanted.blobs:
        return []  # files deleted only: nothing to store, no model needed
    packages = PackageIndex.above(root, wanted.blobs)  # the nearest manifest of the file's ecosystem
    files = []
    for path, blob in sorted(wanted.blobs.items()):
        strategy = policy.strategy_for(path)
        assert strategy is not None  # only crawlable paths are scanned
        files.append(SourceFile(path, blob, strategy, package_of(packages, path, catalog.name)))
    target = Request(catalog, member.partition(":")[2], working_dir=True)
    skipped: Counter[str] = Counter()
    crawl = _OverlayCrawl(s.store, s.engine, target, settings=CrawlSettings(two_phase=True))
    crawl.run(files, _reader(root, wanted.contents, skipped))
    stored = {
        str(r.payload[Key.FILE_ID])
        for r in s.store.scroll(
            filters.label_chunks(members.Held(member, member), Match(Key.CHUNK_ORDINAL, 1)),
            payload_keys=(Key.FILE_ID,),
        )
    }
    out = []
    for f in files:
        fid = file_info(target, s.engine, f).file_id
        out.append(OverlayFile(f.relative_path, f.blob_id, fid if fid in stored else ""))
    if skipped:
        logs.get("monodex.overlay").debug("overlay.skipped", worktree=str(root), **skipped)
    return out


class _OverlayCrawl(Crawl):
    """A crawl into an overlay membership: no label metadata is written (an overlay is no label)."""

    def _mark(self, *, complete: bool, extra: dict[str, Any]) -> None:
        return None


def _reader(root: Path, contents: dict[str, bytes], skipped: Counter[str]) -> Any:
    """Reads the files the scan did not already read; a file that changed since is skipped (the
    next search sees its new stat and hashes it again)."""

    def read(chosen: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes]]:
        for f in chosen:
            content = contents.get(f.relative_path)
            if content is None:
                content = read_file(root, f.relative_path)
            if content is None or git_blob_sha1(content) != f.blob_id:
                skipped["changed"] += 1
                continue
            # a script's `#!` line is read; the generator's marks are not judged here (as ever)
            problem = text_problem(content, f.relative_path, f.strategy, checked=False)
            if problem:
                skipped[problem] += 1
                continue
            yield f, content

    return read
