"""Compacting a copy of the shard beside it, then swapping it in: a compaction nobody waits for
(upkeep/compaction.py starts one after a crawl without a runner).

The shard is locked only to copy it (~0.3 s for rushstack's 200 MB) and to swap the compacted
copy in (renames): searches meanwhile open the shard as it is. Every process that writes bumps
the shard's generation before its first write (EdgeStore._touch), so a copy taken before a write
is never swapped in over it (it is dropped; the next crawl compacts). A crash mid-swap is rolled
forward by the next open (finish_swap): the copy was complete before the swap began."""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path

from monodex.indexer.store.edge import META, PARTS, SWAP, Busy, EdgeStore, finish_swap, read_meta

from monodex.disk import diskspace, jsonfile

LOCK_PATIENCE_SECONDS = 120.0  # the crawl that started us still holds the lock for a moment


def _locked(store: EdgeStore, patience: float = LOCK_PATIENCE_SECONDS) -> bool:
    deadline = time.monotonic() + patience
    while True:
        try:
            store._acquire()
            return True
        except Busy:
            if time.monotonic() >= deadline:
                return False


def snapshot(store: EdgeStore) -> int | None:
    """Copy the shard aside (copy_dir), under its lock: the generation copied, or None when the
    lock never came or there is no room for a copy and its compaction."""
    if not _locked(store):
        return None
    try:
        finish_swap(store.dir, store.aside_dir)
        meta = read_meta(store.dir) or {}
        if not meta:
            return None
        need = diskspace.allocated(store.dir) + diskspace.need_to_compact(store.dir)
        if diskspace.free_bytes(store.dir) < need:
            return None
        dest = store.aside_dir
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir()
        for part in PARTS:
            if (store.dir / part).exists():
                _copy(store.dir / part, dest / part)
        jsonfile.write_atomic(dest / META, meta)
        return int(meta.get("generation", 0))
    finally:
        store._release()


def swap(store: EdgeStore, generation: int) -> bool:
    """Put the compacted copy in the shard's place, unless the shard was written since it was
    copied (then the copy is dropped). Whether it was swapped in."""
    src = store.aside_dir
    if not _locked(store):
        shutil.rmtree(src, ignore_errors=True)
        return False
    try:
        meta = read_meta(store.dir) or {}
        if int(meta.get("generation", 0)) != generation:
            shutil.rmtree(src, ignore_errors=True)
            return False
        shutil.rmtree(store.dir.with_name(f".{store.dir.name}.replaced"), ignore_errors=True)
        jsonfile.write_atomic(store.dir / META, {**meta, SWAP: True})
        finish_swap(store.dir, src)
        return True
    finally:
        store._release()


def _copy(src: Path, dst: Path) -> None:
    if src.is_dir():
        dst.mkdir()
        for child in src.iterdir():
            _copy(child, dst / child.name)
    else:
        _sparse_copy(src, dst)


def _sparse_copy(src: Path, dst: Path) -> None:
    """Edge's files are mostly holes (rushstack's shard: 484 MB long, 184 MB on disk): copy only
    their data, or the copy would take the holes' size in blocks."""
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        size = os.fstat(fin.fileno()).st_size
        fout.truncate(size)
        pos = 0
        while pos < size:
            try:
                start = os.lseek(fin.fileno(), pos, os.SEEK_DATA)
            except OSError as exc:
                if exc.errno == errno.ENXIO:  # only a hole after pos
                    break
                start, end = pos, size  # no SEEK_DATA on this filesystem: copy it all
            else:
                end = os.lseek(fin.fileno(), start, os.SEEK_HOLE)
            fin.seek(start)
            fout.seek(start)
            while start < end:
                chunk = fin.read(min(1 << 20, end - start))
                if not chunk:
                    break
                fout.write(chunk)
                start += len(chunk)
            pos = end
    shutil.copystat(src, dst)
