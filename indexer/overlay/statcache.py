"""Blob ids of a worktree's dirty files without reading them again: a stat cache like git's index
(path -> size, mtime_ns, ctime_ns, inode, blob id, when it was hashed), kept under the state
folder per worktree. A search from a worktree scans only the paths `git status` lists, so when
nothing changed the scan costs one lstat a dirty file and reads nothing.

A file whose mtime is within `RACY_NS` of when it was hashed may have changed again in the same
timestamp tick: it is read again until it is older than that (git's "racily clean" rule).
"""

from __future__ import annotations

import stat
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.git import worktree
from monodex.indexer.points.identity import git_blob_sha1

from monodex.disk import nolinks

RACY_NS = 2_000_000_000


@dataclass
class Scan:
    blobs: dict[str, str] = field(default_factory=dict)  # path on disk -> git blob id
    contents: dict[str, bytes] = field(default_factory=dict)  # the files read by this scan
    hashed: int = 0  # files read to compute their blob id
    changed: bool = False  # the cache must be written back


def scan(
    root: Path,
    paths: Iterable[str],
    cache: dict[str, object],
    *,
    max_bytes: Callable[[str], int],
    now_ns: int | None = None,
) -> Scan:
    """Blob ids of the regular, non-empty files among `paths` no larger than max_bytes (the
    others are deleted, links, under a linked folder, or not indexed: absent from the result).
    `cache` is updated in place and keeps only `paths`."""
    out = Scan()
    wanted = set(paths)
    for stale in [p for p in cache if p not in wanted]:
        del cache[stale]
        out.changed = True
    for path in sorted(wanted):
        st = nolinks.lstat(root, path)  # None under a folder that is a link: crawl's rule
        if st is None or not stat.S_ISREG(st.st_mode) or not 0 < st.st_size <= max_bytes(path):
            out.changed |= cache.pop(path, None) is not None
            continue
        key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        cached = cache.get(path)
        if isinstance(cached, list) and _trusted(cached, key, st.st_mtime_ns):
            out.blobs[path] = str(cached[4])
            continue
        content = worktree.read(root, path)
        if content is None:
            continue
        out.hashed += 1
        out.blobs[path] = git_blob_sha1(content)
        out.contents[path] = content
        cache[path] = [*key, out.blobs[path], time.time_ns() if now_ns is None else now_ns]
        out.changed = True
    return out


def _trusted(entry: list[Any], key: list[int], mtime_ns: int) -> bool:
    """The entry is for this stat, and was hashed long enough after the last change."""
    if len(entry) != 6 or entry[:4] != key or not isinstance(entry[5], int):
        return False
    return bool(entry[5] - mtime_ns > RACY_NS)
