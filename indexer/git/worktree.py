"""The work tree as tree entries, for working-dir crawls.

The walk never follows symbolic links (a link is an entry of kind `symlink`, never read), skips
`.git`, prunes folders ignored by .gitignore (so node_modules is not even listed), and reports a
nested repository as a `submodule` entry. Files the caller wants are read once to compute their
git blob id (what `git hash-object` gives), unless stat says they are empty or too large.
Tracked files that match .gitignore are skipped too: the walk does not read the index. Files
the policy rejects are not checked against .gitignore (they count as `policy` either way).
"""

from __future__ import annotations

import os
import stat
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.git.gitobjects import TreeEntry, ignore_filter
from monodex.indexer.packages.manifests import is_manifest
from monodex.indexer.points.identity import git_blob_sha1

from monodex.disk import nolinks

# path -> [size, mtime_ns, ctime_ns, inode, blob_id]
StatCache = dict[str, list[Any]]
_RACY_NS = 2_000_000_000  # a file modified this recently may change again within the same tick
_LINK, _GITLINK, _FILE, _EXEC = 0o120000, 0o160000, 0o100644, 0o100755


@dataclass
class WorkTree:
    root: Path
    entries: list[TreeEntry] = field(default_factory=list)
    manifests: list[str] = field(default_factory=list)  # package manifest paths, for PackageIndex
    skipped: Counter[str] = field(default_factory=Counter)  # `unreadable`
    cache: StatCache = field(default_factory=dict)
    hashed: int = 0  # files read to compute their blob id (the others came from the cache)


def scan(
    root: Path,
    wanted: Callable[[str], bool],
    *,
    max_bytes: Callable[[str], int],
    cache: StatCache | None = None,
) -> WorkTree:
    """Every file, link and nested repository under root; blob ids only for wanted files.

    With a cache, a file whose size, mtime, ctime and inode are unchanged keeps its blob id
    without being read (git's index does the same); the cache is updated in place."""
    tree = WorkTree(root, cache=cache if cache is not None else {})
    is_ignored = ignore_filter(root)
    folders = [""]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(root / folder) as it:
                items = sorted(it, key=lambda d: d.name)
        except OSError:
            tree.skipped["unreadable"] += 1
            continue
        for item in items:
            path = f"{folder}/{item.name}" if folder else item.name
            if item.name == ".git":
                continue
            if _is_dir(item):
                if is_ignored(path + "/"):
                    continue
                if os.path.lexists(os.path.join(item.path, ".git")):
                    tree.entries.append(TreeEntry(path, "", _GITLINK))
                else:
                    folders.append(path)
            # dulwich's matcher is the walk's main cost (rushstack: 3.1 of 3.6 s when asked for
            # every path), so only files that could be crawled or name a package are asked.
            elif not ((wanted(path) or is_manifest(path)) and is_ignored(path)):
                _add_file(tree, item, path, wanted, max_bytes)
    return tree


def _is_dir(item: os.DirEntry[str]) -> bool:
    return item.is_dir(follow_symlinks=False)


def _add_file(
    tree: WorkTree,
    item: os.DirEntry[str],
    path: str,
    wanted: Callable[[str], bool],
    max_bytes: Callable[[str], int],
) -> None:
    st = item.stat(follow_symlinks=False)
    if stat.S_ISLNK(st.st_mode):
        tree.entries.append(TreeEntry(path, "", _LINK))
        return
    if not stat.S_ISREG(st.st_mode):
        return  # sockets, fifos, devices: git does not track them either
    if is_manifest(path):
        tree.manifests.append(path)
    mode = _EXEC if st.st_mode & 0o111 else _FILE
    blob_id = ""
    if wanted(path) and 0 < st.st_size <= max_bytes(path):
        key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]
        cached = tree.cache.get(path)
        if cached is not None and cached[:4] == key and time.time_ns() - st.st_mtime_ns > _RACY_NS:
            blob_id = str(cached[4])
        else:
            content = read(tree.root, path)
            if content is None:
                tree.skipped["unreadable"] += 1
                return
            blob_id = git_blob_sha1(content)
            tree.hashed += 1
            tree.cache[path] = [*key, blob_id]
    tree.entries.append(TreeEntry(path, blob_id, mode, st.st_size))


def read(root: Path, path: str) -> bytes | None:
    """A regular file's bytes; None on error, or when any part of `path` is a link (nolinks.py)."""
    try:
        fd = nolinks.open_file(root, path)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return None
        return fh.read()
