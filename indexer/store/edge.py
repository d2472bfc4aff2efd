"""The embedded default: a Qdrant Edge shard in-process. The only importer of qdrant_edge."""

from __future__ import annotations

import contextlib
import fcntl
import functools
import json
import os
import shlex
import shutil
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar, cast

import qdrant_edge as qe
from monodex.indexer.store import sidecar
from monodex.indexer.store.base import (
    BOOL_INDEXES,
    DENSE,
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    LEXICAL,
    RRF_K,
    CollectionInfo,
    Condition,
    Filter,
    IsEmpty,
    Match,
    MatchAny,
    Point,
    Record,
    Scored,
    SparseVector,
)

from monodex.disk import diskspace, jsonfile
from monodex.errors import MonodexError
from monodex.schema.payload import Key

META = "monodex-collection.json"
LOCK = "monodex.lock"
LOCK_WAIT_SECONDS = 10.0
COUNT_CACHE = 256  # filters whose counts are kept between writes (a search uses two a label)
# How compacted segments keep their data: "mmap-v1" = vectors, HNSW, sparse index, id tracker and
# payload indexes memory-mapped and read on demand. Opening a shard built every in-memory structure
# of every point (0.34 s at 36,252 points, 100 rushstack labels: a CLI search without a runner paid
# it each time); a compacted mmap segment opens in 0.11 s and its searches were no slower
# (in-process p50 6.2 ms against 8.0). The appendable segment, where writes land until the next
# compaction, stays in RAM either way.
LAYOUT = "mmap-v1"
MOVING = "moving to " + LAYOUT
# Edge compacts an appendable segment only once its vectors outgrow this (Qdrant's default is
# 10,000 KB): rushstack's 12,597 phase-one points stayed appendable through optimize(), and every
# new process kept building them in memory (0.20 s to open; 0.11 s compacted, in 2.4 s). 1,000 KB
# is ~670 dense vectors: what a compaction "when it helps" (upkeep/compaction.py) finds written is
# always above it, so asking to compact compacts.
INDEXING_KB = 1_000
# How many segments Edge keeps before it merges the smallest: its default (0) is one per CPU, and
# at 2 a compaction merged every segment into one each time, so compacting a large crawl in steps
# (roll) cost more at each step (5.8, 12.8, 27.8, 40 s of CPU for 4 x 25,600 points) and its
# memory grew; at 8 each step converted only what was written since the last one (~7-8 s each).
# Since crawls roll without merging (ROLL_SEGMENTS) and the compaction after them merges, 4: each
# segment costs every process that opens the shard (its payload indexes' null flags, its sparse
# index's term map): at 100,000 files opening took 0.584 s at 8 segments and 0.448 s at 4, a CLI
# search 1.03 s and 0.94 s (in-process 10.2 and 9.7 ms); merging 8 into 4 took 23 s more.
SEGMENTS = 4
# ... and while a crawl rolls (roll): so many that Edge never merges, only converts what was
# written. Merging in every roll rewrote segments that grow with the index: at 100,000 files
# each late roll merged ~180 MB segments (38-62 s, the crawl's peak 2.2 GB); converting only,
# a roll costs what it rolls. The compaction after the crawl merges down to SEGMENTS.
ROLL_SEGMENTS = 10_000


_F = TypeVar("_F", bound=Callable[..., Any])

# Shards a process that ends with its command flushed and left open for its exit (leaving()), by
# folder, each with the descriptor holding its lock: a store opening that folder again in this
# process takes it back instead of loading it.
_LEFT: dict[Path, tuple[Any, int | None]] = {}
_leaving = False


@contextlib.contextmanager
def leaving() -> Iterator[None]:
    """Within: close() flushes a shard and leaves it, and its lock, to the process's exit.

    Closing drops every segment, and Qdrant's segment drops its files from the page cache as it
    goes (fadvise DONTNEED of vectors, payloads, indexes): at 100,000 files a label one commit
    away spent 0.21 s of its 1.24 s closing, and the next command read cold pages. Only for a
    process that exits when its command returns (the `monodex` CLI: front/route.py): another
    process waiting for the lock gets it at that exit, as it got it at close before."""
    global _leaving
    before, _leaving = _leaving, True
    try:
        yield
    finally:
        _leaving = before


def release_left() -> None:
    """Close the shards left for the exit (before this process waits on another that needs one)."""
    while _LEFT:
        _, (shard, fd) = _LEFT.popitem()
        try:
            shard.close()
        finally:
            if fd is not None:
                os.close(fd)


def _locked(method: _F) -> _F:
    @functools.wraps(method)
    def call(self: EdgeStore, *args: Any, **kwargs: Any) -> Any:
        with self._mutex:
            return method(self, *args, **kwargs)

    return cast(_F, call)


PARTS = ("segments", "wal", "edge_config.json")  # what Edge keeps in a shard folder
SWAP = "swapping"  # META key: a compacted copy is being swapped in (upkeep/aside.py)


def finish_swap(shard: Path, aside: Path) -> None:
    """Complete a swap of the compacted copy `aside` into `shard` that began (under the lock,
    before the shard opens). The copy was whole before the swap began: roll forward."""
    meta = dict(jsonfile.read(shard / META)) if (shard / META).exists() else {}
    if not meta.get(SWAP):
        return
    trash = shard.with_name(f".{shard.name}.replaced")
    trash.mkdir(exist_ok=True)
    for part in PARTS:
        if not (aside / part).exists():
            continue  # moved in already
        if (shard / part).exists():  # still the old one: set it aside first
            if (trash / part).is_dir():
                shutil.rmtree(trash / part)
            os.replace(shard / part, trash / part)
        os.replace(aside / part, shard / part)
    copied = dict(jsonfile.read(aside / META)) if (aside / META).exists() else meta
    done = {**copied, "generation": int(meta.get("generation", 0)) + 1, "written": 0}
    jsonfile.write_atomic(shard / META, {k: v for k, v in done.items() if k != SWAP})
    shutil.rmtree(trash, ignore_errors=True)
    shutil.rmtree(aside, ignore_errors=True)


class Busy(MonodexError):
    """Another process owns the shard (its WAL is locked)."""


@functools.cache
def _bool(value: bool) -> Any:
    """A bool as qdrant-edge-py 0.9.0's filters read one. Its MatchValue reads a Python bool as
    the integer 1/0 (bool is an int), which matches no bool payload. pyo3 reads numpy's bool as
    a bool, knowing it by its type's module and name: an object of a type named numpy.bool_
    whose truth is `value` passes the same way, without importing numpy (~45 ms of a command).
    What the binding made of each candidate is read back; numpy's own bool is the last resort."""
    if qe.MatchValue(value).value is value:  # a binding that reads bools as bools
        return value
    stand_in = type("bool_", (), {"__module__": "numpy", "__bool__": lambda _self: value})()
    if qe.MatchValue(stand_in).value is value:
        return stand_in
    import numpy as np

    return np.bool_(value)


def _condition(c: Condition) -> Any:
    if isinstance(c, Match):
        value: Any = _bool(c.value) if isinstance(c.value, bool) else c.value
        return qe.FieldCondition(key=c.key, match=qe.MatchValue(value))
    if isinstance(c, MatchAny):
        return qe.FieldCondition(key=c.key, match=qe.MatchAny(list(c.values)))
    if isinstance(c, IsEmpty):
        return qe.IsEmptyCondition(c.key)
    if isinstance(c, Filter):
        return _filter(c) or qe.Filter()
    raise TypeError(c)


def _filter(f: Filter | None) -> Any:
    if f is None or (not f.must and not f.must_not and not f.should):
        return None
    try:
        return _translated(f)
    except TypeError:  # unhashable values (a list for a tuple): translated each time
        return _translate(f)


@functools.lru_cache(maxsize=64)
def _translated(f: Filter) -> Any:
    """A search reuses its filter for each count and query, and a search of 100 labels builds one
    of ~400 conditions: translated once (18 ms of a 90 ms search, cProfile)."""
    return _translate(f)


def _translate(f: Filter) -> Any:
    return qe.Filter(
        must=[_condition(c) for c in f.must] or None,
        must_not=[_condition(c) for c in f.must_not] or None,
        should=[_condition(c) for c in f.should] or None,
    )


def _vector(p: Point) -> dict[str, list[float] | qe.SparseVector | list[list[float]]]:
    vec: dict[str, list[float] | qe.SparseVector | list[list[float]]] = {}
    if p.dense is not None:
        vec[DENSE] = [float(x) for x in p.dense]
    if p.sparse is not None and p.sparse.indices:
        vec[LEXICAL] = qe.SparseVector(list(p.sparse.indices), list(p.sparse.values))
    return vec


def _config(dim: int, segments: int = SEGMENTS) -> Any:
    cold = qe.Memory.Cold
    return qe.EdgeConfig(
        vectors={
            DENSE: qe.EdgeVectorParams(size=dim, distance=qe.Distance.Cosine, on_disk=True, memory=cold)
        },
        sparse_vectors={
            LEXICAL: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf, on_disk=True, memory=cold)
        },
        # Qdrant's defaults (m 16, ef_construct 100, full scan below 10,000 KB), only kept on disk
        hnsw_config=qe.HnswIndexConfig(16, 100, 10_000, on_disk=True, memory=cold),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=INDEXING_KB, default_segment_number=segments),
        payload_memory=cold,
        id_tracker_memory=cold,
    )


def _index_params(key: str) -> Any:
    if key in INTEGER_INDEXES:
        return qe.IntegerIndexParams(lookup=True, range=True, on_disk=True)
    if key in BOOL_INDEXES:
        return qe.BoolIndexParams(on_disk=True)
    return qe.KeywordIndexParams(on_disk=True, memory=qe.Memory.Cold)


def _command() -> str:
    """This process as the user typed it: `monodex crawl ...`, not `.../__main__.py crawl ...`."""
    argv = list(sys.argv) or ["?"]
    if argv[0].endswith(("/monodex", "monodex/__main__.py")) or argv[0] == "monodex":
        argv[0] = "monodex"
    return shlex.join(argv)[:300]


def _owner(fd: int) -> tuple[str, str]:
    """(pid, command) as written by the process holding the lock; '' for what is unknown."""
    pid, _, command = os.pread(fd, 400, 0).decode(errors="replace").partition("\n")
    return (pid.strip() if pid.strip().isdigit() else ""), command.strip()


# A chunk's payload besides its text (ids, hashes, path prefixes, ...) is under this many bytes.
_CHUNK_FIELDS_BYTES = 2048


def _size(p: Point) -> int:
    """A point's bytes, roughly: its vectors and its payload. A chunk's text dominates its payload
    and bounds it (serializing every payload to measure it was 0.7 s of rushstack's phase one)."""
    sparse = 8 * len(p.sparse.indices) if p.sparse is not None else 0
    text = p.payload.get(Key.TEXT)
    if isinstance(text, str):
        payload = _CHUNK_FIELDS_BYTES + len(text) * (1 if text.isascii() else 4)
    else:  # metadata and delta points: their fields are the payload
        payload = len(json.dumps(p.payload, default=str))
    return 4 * len(p.dense or ()) + sparse + payload


def _dense_of(v: Any) -> list[float] | None:
    if isinstance(v, dict):
        d = v.get(DENSE)
        return [float(x) for x in d] if d is not None else None
    return None


def read_meta(folder: Path) -> dict[str, Any] | None:
    """The shard's own file (META: its layout, generation, writes since compaction) in `folder`,
    the shard's or its copy aside; None before its first write."""
    f = folder / META
    return dict(jsonfile.read(f)) if f.exists() else None


class EdgeStore:
    """One collection = one shard directory `<path>/<collection>/`, owned by one process at a time.

    Ownership is our own flock on `monodex.lock`, taken *before* Qdrant Edge opens anything:
    a second process that merely attempts `EdgeShard.load` while another owns the shard fails
    on the WAL lock (WouldBlock), yet by then it has touched the segments and the owner's later
    writes can be lost (reproduced: 8,000 of 56,000 points gone; none with the flock first).
    """

    def __init__(self, path: Path, collection: str) -> None:
        self.dir = path / collection
        self.collection = collection
        self._shard: Any = None
        self._lock_fd: int | None = None
        # Exact counts by filter, valid while this process holds the lock and writes nothing:
        # every search counts its label's chunks and those waiting for a vector (two exact counts,
        # 4-5 ms of a 10 ms search at 12,597 chunks), and a runner answers many searches between writes.
        self._counts: dict[Filter, int] = {}
        # Points written by this process since it opened the shard, added to META's "written" at
        # close: what a compaction would merge (see uncompacted).
        self._written = 0
        # The crawl's threads share this store (a producer reads while the uploader writes), and
        # roll() replaces the shard under them: every use of the shard holds this lock.
        self._mutex = threading.RLock()
        self._touched = False  # this process wrote, and moved the generation on (_touch)

    @property
    def aside_dir(self) -> Path:
        """Where a compaction nobody waits for copies the shard (upkeep/aside.py)."""
        return self.dir.with_name(f".{self.dir.name}.compacting")  # never taken for a collection

    def _touch(self) -> None:
        """Before this process changes the shard: its generation moves on, so a compacted copy
        taken before is never swapped in over the change (upkeep/aside.py). Written before the
        change, so a writer killed after it still counts."""
        if self._touched:
            return
        meta = read_meta(self.dir)
        if meta is not None:
            jsonfile.write_atomic(self.dir / META, {**meta, "generation": int(meta.get("generation", 0)) + 1})
        self._touched = True

    # --- lifecycle -------------------------------------------------------------------------
    def _open(self) -> Any:
        if self._shard is None and self.dir in _LEFT:  # left by a close in this process: still ours
            self._shard, self._lock_fd = _LEFT.pop(self.dir)
        if self._shard is None and read_meta(self.dir) is not None:
            # Opening writes (a WAL replay, rewritten structures) and, on tmpfs, allocates every
            # page it reads: on a full disk that was a SIGBUS in labels, status and verify too.
            diskspace.require(self.dir, need=diskspace.need_to_open(self.dir), doing="opening the index")
            diskspace.guard_sigbus(self.dir)
            self._acquire()
            try:
                finish_swap(self.dir, self.aside_dir)
                self._shard = self._load()
            except BaseException:
                self._release()
                raise
            self._add_bool_indexes()
            if (read_meta(self.dir) or {}).get("layout") == MOVING:  # a move to LAYOUT was killed
                self._relayout()
        return self._shard

    def _add_bool_indexes(self) -> None:
        """Shards made before two-phase indexing lack the dense_pending index, and every search
        counts the label's waiting chunks: unindexed, that count scanned every payload (57 ms
        at 12,597 chunks; 1 ms indexed). Added once, on the first open, even by a search."""
        meta = read_meta(self.dir) or {}
        missing = [k for k in BOOL_INDEXES if k not in meta.get("bool_indexes", [])]
        if not missing:
            return
        self._touch()
        for key in missing:
            self._call(self._shard.update, qe.UpdateOperation.create_field_index(key, _index_params(key)))
        jsonfile.write_atomic(self.dir / META, {**meta, "bool_indexes": list(BOOL_INDEXES)})

    def _busy(self, detail: str, *, pid: str = "", command: str = "") -> Busy:
        who = f"another process, {command!r}," if command else "another process"
        if not pid:
            hint = "stop the monodex runner or wait for the other command to finish"
        elif command.startswith("monodex runner"):
            hint = (
                f"it is the monodex runner, yet it did not answer on its socket: see 'monodex status'; "
                f"restart it ('systemctl --user restart monodex-runner', or kill {pid} and start it again)"
            )
        else:
            # not "start the runner": it cannot take the index while this command holds it
            hint = (
                f"wait for it to finish, or stop it (kill {pid}; a crawl resumes where it stopped); "
                "the runner cannot start while it holds the index: once it is done, start the runner "
                "('monodex runner') and later crawls and searches both go through it"
            )
        return Busy(f"the index at {self.dir} is in use by {who} ({detail})", hint)

    def _acquire(self) -> None:
        """Wait briefly for the lock: searches hold the shard for milliseconds, so a command
        that finds it taken usually just waits its turn."""
        if self._lock_fd is not None:
            return
        fd = os.open(self.dir / LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    pid, command = _owner(fd)
                    os.close(fd)
                    detail = (f"pid {pid}; " if pid else "") + f"waited {LOCK_WAIT_SECONDS:g} s for {LOCK}"
                    raise self._busy(detail, pid=pid, command=command) from None
                time.sleep(0.05)
                continue
            os.ftruncate(fd, 0)  # the pid is only for the message above; the flock is the lock
            os.pwrite(fd, f"{os.getpid()}\n{_command()}\n".encode(), 0)
            self._lock_fd = fd
            return

    def _release(self) -> None:
        self._counts.clear()  # another process may write once the lock is gone
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None

    def _load(self) -> Any:
        """Under our lock the WAL is free unless something outside monodex holds it."""
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                return self._call(qe.EdgeShard.load, str(self.dir))
            except Busy:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    def _call(self, fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except Exception as exc:  # qdrant_edge raises plain Exception("Service runtime error: ...")
            text = str(exc)
            if "no space left on device" in text.lower():  # an ordinary write of Edge's hit ENOSPC
                raise diskspace.shortage(
                    free=diskspace.free_bytes(self.dir),
                    need=diskspace.RESERVE_BYTES,
                    mount=diskspace.mount_point(self.dir),
                    where=self.dir,
                    doing="Qdrant Edge",
                ) from exc
            if "wouldblock" in text.lower():  # "failed to open WAL ...: Can't init WAL: Kind(WouldBlock)"
                raise self._busy(text) from exc
            raise MonodexError(f"Qdrant Edge failed: {text}", f"check {self.dir}") from exc

    @_locked
    def ensure_collection(self, *, dim: int, embedder_id: str) -> None:
        if read_meta(self.dir) is None:
            diskspace.require(self.dir, need=diskspace.RESERVE_BYTES, doing="creating the index")
            diskspace.guard_sigbus(self.dir)
            self.dir.mkdir(parents=True, exist_ok=True)
            self._acquire()
            if read_meta(self.dir) is None:  # still missing now that we own the directory
                self._create(dim=dim, embedder_id=embedder_id)
                return
        meta = read_meta(self.dir)
        assert meta is not None
        sidecar.check(
            self.collection,
            have_dim=int(meta["dim"]),
            have_embedder=meta.get("embedder_id"),
            dim=dim,
            embedder_id=embedder_id,
        )
        self._open()
        have = meta.get("keyword_indexes", [k for k in KEYWORD_INDEXES if k != Key.EMBEDDED_TEXT_HASH])
        if missing := [k for k in KEYWORD_INDEXES if k not in have]:  # shards made by older versions
            for key in missing:
                self._update(qe.UpdateOperation.create_field_index(key, _index_params(key)))
            meta = read_meta(self.dir) or meta  # _open may have added the bool indexes meanwhile
            jsonfile.write_atomic(self.dir / META, {**meta, "keyword_indexes": list(KEYWORD_INDEXES)})

    def _create(self, *, dim: int, embedder_id: str) -> None:
        for leftover in self.dir.iterdir():  # an interrupted create: no META, so never any data
            if leftover.name != LOCK:
                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
        try:
            self._shard = self._call(qe.EdgeShard.create, str(self.dir), _config(dim))
        except BaseException:
            self._release()
            raise
        for key in (*KEYWORD_INDEXES, *INTEGER_INDEXES, *BOOL_INDEXES):
            self._update(qe.UpdateOperation.create_field_index(key, _index_params(key)))
        self._call(self._shard.flush)
        # Written last: a crash before this leaves no half-made collection that looks complete.
        meta = {
            "dim": dim,
            "embedder_id": embedder_id,
            "keyword_indexes": list(KEYWORD_INDEXES),
            "bool_indexes": list(BOOL_INDEXES),
            "layout": LAYOUT,
            "indexing_kb": INDEXING_KB,
            "segments": SEGMENTS,
        }
        jsonfile.write_atomic(self.dir / META, meta)

    @_locked
    def info(self) -> CollectionInfo | None:
        meta = read_meta(self.dir)
        if meta is None:
            return None
        self._open()  # the shard is taken here, as every reader of info expects to use it next
        return CollectionInfo(dim=int(meta["dim"]), embedder_id=meta.get("embedder_id"), has_sparse=True)

    @_locked
    def uncompacted(self) -> tuple[int, int]:
        """(points written since the last compaction, points stored). Counted by monodex, not
        asked of Edge: its ShardInfo has no per-segment counts. A process killed before close
        loses its share of the count, and the nightly compaction still comes."""
        shard = self._open()
        if shard is None:
            return 0, 0
        written = int((read_meta(self.dir) or {}).get("written", 0)) + self._written
        return written, int(self._call(shard.info).points_count)

    @_locked
    def optimize(self) -> bool:
        """Build HNSW and merge segments (blocking).

        Until this runs every point sits in one plain segment and a search scans it: at 50,000
        points a filtered top-10 took 10.6 ms before and 1.5 ms after (optimize: 72 s, 2 cores).
        A shard made before LAYOUT is moved to it first, so its compacted segments are mmap too."""
        shard = self._open()
        if shard is None:
            return False
        diskspace.require(self.dir, need=diskspace.need_to_compact(self.dir), doing="compacting the index")
        self._touch()
        meta = read_meta(self.dir) or {}
        moved = meta.get("layout") != LAYOUT
        if moved:
            shard = self._relayout()
        elif (meta.get("indexing_kb"), meta.get("segments")) != (INDEXING_KB, SEGMENTS):
            shard = self._reload(meta)  # made before INDEXING_KB or SEGMENTS: the config persists
            jsonfile.write_atomic(self.dir / META, {**meta, "indexing_kb": INDEXING_KB, "segments": SEGMENTS})
        done = bool(self._call(shard.optimize)) or moved
        self._call(shard.flush)
        self._written = 0
        jsonfile.write_atomic(self.dir / META, {**(read_meta(self.dir) or {}), "written": 0})
        return done

    @_locked
    def roll(self) -> bool:
        """Convert what was written since the last roll into a segment on disk, then reopen the
        shard: Edge keeps its appendable segment (~9 KB a point written, payload indexes and
        written pages) in this process until then, so a large crawl rolls to stay under its
        memory ceiling (write/memory.py). Nothing is merged (ROLL_SEGMENTS) and the writes still
        count as uncompacted, so the compaction after the crawl merges (optimize). Blocking;
        whether it rolled."""
        shard = self._open()
        if shard is None:
            return False
        diskspace.require(self.dir, need=diskspace.need_to_compact(self.dir), doing="compacting the index")
        self._touch()
        meta = read_meta(self.dir) or {}
        if meta.get("layout") != LAYOUT:
            self.optimize()  # a shard made before LAYOUT is moved to it once, merged as it was
            meta = read_meta(self.dir) or {}
        if meta.get("segments") != ROLL_SEGMENTS:
            # marked first: the next optimize() sees a config other than SEGMENTS and reloads
            jsonfile.write_atomic(self.dir / META, {**meta, "segments": ROLL_SEGMENTS})
            shard = self._reload(meta, segments=ROLL_SEGMENTS)
        self._call(shard.optimize)
        self._reload(meta, segments=ROLL_SEGMENTS)
        return True

    def _relayout(self) -> Any:
        """Reopen with LAYOUT's config (it persists) and rebuild each payload index with its
        params (an index keeps the params it was made with); no vector or payload is rewritten.
        Marked MOVING first: a kill between an index's delete and its create leaves that field
        unindexed, and the next open finishes the move (every step can be repeated)."""
        self._touch()
        meta = read_meta(self.dir) or {}
        jsonfile.write_atomic(self.dir / META, {**meta, "layout": MOVING})
        self._reload(meta)
        for key in (*KEYWORD_INDEXES, *INTEGER_INDEXES, *BOOL_INDEXES):
            self._update(qe.UpdateOperation.delete_field_index(key))
            self._update(qe.UpdateOperation.create_field_index(key, _index_params(key)))
        self._call(self._shard.flush)
        done = {"layout": LAYOUT, "indexing_kb": INDEXING_KB, "segments": SEGMENTS}
        jsonfile.write_atomic(self.dir / META, {**(read_meta(self.dir) or meta), **done})
        return self._shard

    def _reload(self, meta: dict[str, Any], *, segments: int = SEGMENTS) -> Any:
        """Close and open again with today's config, which Edge persists in the shard."""
        shard, self._shard = self._shard, None
        self._call(shard.flush)
        self._call(shard.close)
        self._shard = self._call(qe.EdgeShard.load, str(self.dir), _config(int(meta["dim"]), segments))
        return self._shard

    @_locked
    def close(self) -> None:
        try:
            if self._shard is not None:
                shard, self._shard = self._shard, None
                if _leaving:
                    self._call(shard.flush)  # durable now: the exit only has to let go of it
                    _LEFT[self.dir], self._lock_fd = (shard, self._lock_fd), None
                else:
                    self._call(shard.close)  # Edge flushes as it closes: a flush before cost ~10 ms more
                meta = read_meta(self.dir)
                if self._written and meta is not None:
                    written = int(meta.get("written", 0)) + self._written
                    jsonfile.write_atomic(self.dir / META, {**meta, "written": written})
                self._written = 0
        finally:
            self._touched = False
            self._release()

    # --- writes ----------------------------------------------------------------------------
    def _update(self, op: Any, *, size: int = 0, what: str = "a write", points: int = 0) -> None:
        """size: the bytes the operation carries; it lands in the WAL and then in the segments;
        points: how many points it writes (each lands in the appendable segment)."""
        shard = self._open()
        if shard is None:
            raise MonodexError("the collection does not exist yet", "crawl a label first")
        diskspace.require(self.dir, need=diskspace.RESERVE_BYTES + 3 * size, doing=what)
        self._counts.clear()
        self._touch()
        self._call(shard.update, op)
        self._written += points

    @_locked
    def upsert(self, points: Sequence[Point]) -> None:
        if points:
            pts = [qe.Point(id=uuid.UUID(p.id), vector=_vector(p), payload=p.payload) for p in points]
            op = qe.UpdateOperation.upsert_points(pts)
            size = sum(_size(p) for p in points)
            self._update(op, size=size, what=f"storing {len(points)} chunks", points=len(points))

    @_locked
    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            op = qe.UpdateOperation.set_payload([uuid.UUID(i) for i in ids], payload)
            self._update(op, points=len(ids))

    @_locked
    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._update(qe.UpdateOperation.delete_points([uuid.UUID(i) for i in ids]), points=len(ids))

    @_locked
    def set_dense(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> int:
        # Edge refuses the whole operation when one id is gone (after updating those before it):
        # the ids still stored are looked up first, under the same single writer.
        present = {r.id for r in self.retrieve([i for i, _ in vectors])}
        kept = [(i, v) for i, v in vectors if i in present]
        if kept:
            pvs = [qe.PointVectors(id=uuid.UUID(i), vector={DENSE: [float(x) for x in v]}) for i, v in kept]
            size = sum(4 * len(v) for _, v in kept)
            self._update(
                qe.UpdateOperation.update_vectors(pvs),
                size=size,
                what=f"adding {len(kept)} vectors",
                points=len(kept),
            )
            ids: list[int | uuid.UUID | str] = [uuid.UUID(i) for i, _ in kept]
            self._update(
                qe.UpdateOperation.set_payload(ids, {Key.DENSE_PENDING: False})
            )  # payloads take bools
        return len(kept)

    # --- reads -----------------------------------------------------------------------------
    @_locked
    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Record]:
        shard = self._open()
        if shard is None or not ids:
            return []
        recs = self._call(lambda: shard.retrieve([uuid.UUID(i) for i in ids], True, with_vectors))
        return [
            Record(str(r.id), dict(r.payload or {}), _dense_of(r.vector) if with_vectors else None)
            for r in recs
        ]

    def scroll(
        self,
        flt: Filter,
        *,
        with_vectors: bool = False,
        batch: int = 1000,
        payload_keys: Sequence[str] | None = None,
    ) -> Iterator[Record]:
        offset: Any = None
        with_payload: Any = list(payload_keys) if payload_keys is not None else True
        while True:
            req = qe.ScrollRequest(
                offset=offset,
                limit=batch,
                filter=_filter(flt),
                with_payload=with_payload,
                with_vector=with_vectors,
            )
            with self._mutex:  # per page: a roll() between two pages reopens the shard
                shard = self._open()
                if shard is None:
                    return
                recs, offset = self._call(shard.scroll, req)
            for r in recs:
                yield Record(str(r.id), dict(r.payload or {}), _dense_of(r.vector) if with_vectors else None)
            if offset is None or not recs:
                return

    @_locked
    def count(self, flt: Filter) -> int:
        shard = self._open()
        if shard is None:
            return 0
        try:
            known = self._counts.get(flt)
        except TypeError:  # unhashable values (a list for a tuple): counted, not kept
            return int(self._call(shard.count, qe.CountRequest(exact=True, filter=_filter(flt))))
        if known is not None:
            return known
        n = int(self._call(shard.count, qe.CountRequest(exact=True, filter=_filter(flt))))
        if len(self._counts) >= COUNT_CACHE:
            self._counts.clear()
        self._counts[flt] = n
        return n

    @_locked
    def search(self, vector: Sequence[float], flt: Filter, *, limit: int) -> list[Scored]:
        return self._query(qe.Query.Nearest([float(x) for x in vector], using=DENSE), flt, limit=limit)

    @_locked
    def search_sparse(self, sparse: SparseVector, flt: Filter, *, limit: int) -> list[Scored]:
        q = qe.Query.Nearest(qe.SparseVector(list(sparse.indices), list(sparse.values)), using=LEXICAL)
        return self._query(q, flt, limit=limit)

    @_locked
    def query_hybrid(
        self,
        dense: Sequence[float],
        sparse: SparseVector,
        flt: Filter,
        *,
        limit: int,
        prefetch_limit: int,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Scored]:
        f = _filter(flt)
        prefetches = [
            qe.Prefetch(
                limit=prefetch_limit, filter=f, query=qe.Query.Nearest([float(x) for x in dense], using=DENSE)
            ),
            qe.Prefetch(
                limit=prefetch_limit,
                filter=f,
                query=qe.Query.Nearest(
                    qe.SparseVector(list(sparse.indices), list(sparse.values)), using=LEXICAL
                ),
            ),
        ]
        fusion = qe.Fusion.Rrf(k=RRF_K, weights=list(weights))
        return self._query(fusion, flt, limit=limit, prefetches=prefetches)

    def _query(self, query: Any, flt: Filter, *, limit: int, prefetches: Any = None) -> list[Scored]:
        shard = self._open()
        if shard is None:
            return []
        req = qe.QueryRequest(
            limit=limit,
            query=query,
            prefetches=prefetches,
            filter=_filter(flt),
            with_payload=True,
            with_vector=False,
        )
        return [
            Scored(str(h.id), float(h.score), dict(h.payload or {})) for h in self._call(shard.query, req)
        ]
