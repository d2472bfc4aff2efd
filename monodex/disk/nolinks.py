"""A file of a checkout reached by its path, never through a link: the one rule for the work
tree (a working-dir crawl's reads, a search overlay's dirty files).

A folder replaced by a link to elsewhere (`src` -> /home/me/private) must not let a path under
it read a file outside the checkout; a link as the last part is refused too (O_NOFOLLOW was all
there was before issue 35). The path is opened one part at a time, each with O_NOFOLLOW, so the
rule holds even when a folder is swapped for a link between a check and the read. The
working-dir walk (indexer/git/worktree.py) keeps the same rule by never walking into a link.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path


def open_file(root: Path, path: str) -> int:
    """A read-only descriptor of `path` (relative, `/`-separated) under root. Raises OSError
    (ELOOP, ENOTDIR, ...) when a part of it is a link."""
    parent, name = _parent(root, path)
    try:
        return os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=parent)
    finally:
        os.close(parent)


def lstat(root: Path, path: str) -> os.stat_result | None:
    """The entry at `path` under root itself (a link is not followed); None when it is missing
    or a folder on the way is a link."""
    try:
        parent, name = _parent(root, path)
    except OSError:
        return None
    try:
        return os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return None
    finally:
        os.close(parent)


def _parent(root: Path, path: str) -> tuple[int, str]:
    """A descriptor of the folder holding `path`, reached part by part, and the last part."""
    *folders, name = path.split("/")
    if {"", ".", ".."} & {*folders, name}:
        raise OSError(errno.EINVAL, "not a plain relative path", path)
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in folders:
            inner = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            os.close(fd)
            fd = inner
    except OSError:
        os.close(fd)
        raise
    return fd, name
