"""Free space under the index, checked before Qdrant Edge opens or writes its shard.

Edge writes through MAP_SHARED mappings of sparse files (32 MB pages, WAL segments): when a page
finds no free block the kernel sends SIGBUS and the process dies with exit 135 and no message, in
the middle of a write. So writers check first and stop with a message instead; the SIGBUS guard is
the backstop for what an estimate misses. Stdlib only.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

from monodex.errors import MonodexError

# Headroom kept free below every open and write: Edge grows a storage by a whole new 32 MB page
# file and rewrites its small structures (via temporary files) as it goes.
RESERVE_BYTES = 64 << 20
# Filesystems whose pages live in memory: there reading a hole of a shared mapping allocates it,
# and Edge reads every page of its vector and payload-index files when it opens a shard (measured
# on tmpfs: the first open after a crawl of 20 files allocated 100 MB).
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs", "shmfs", "hugetlbfs"})
MB = 1 << 20


class DiskFull(MonodexError):
    """Not enough free space to open or write the index."""


def existing(path: Path) -> Path:
    """path, or its nearest ancestor that exists (the folder may not be made yet)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def free_bytes(path: Path) -> int:
    """What an unprivileged writer may still use (root's reserved blocks do not count)."""
    st = os.statvfs(existing(path))
    return st.f_bavail * st.f_frsize


def mount_point(path: Path) -> Path:
    path = existing(path).resolve()
    dev = path.stat().st_dev
    while path != path.parent and path.parent.stat().st_dev == dev:
        path = path.parent
    return path


def fs_type(mount: Path, mountinfo: str) -> str:
    """The filesystem type mounted at `mount`, from /proc/self/mountinfo text ('' when unknown)."""
    found = ""
    for line in mountinfo.splitlines():
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) > 4 and parts[4].replace("\\040", " ") == str(mount) and rest:
            found = rest.split()[0]  # the last mount at a point is the visible one
    return found


def _memory_backed(mount: Path) -> bool:
    try:
        return fs_type(mount, Path("/proc/self/mountinfo").read_text()) in MEMORY_FILESYSTEMS
    except OSError:
        return False


def _files(folder: Path) -> Iterator[os.stat_result]:
    # A compaction in another process drops whole segment folders while this walks them:
    # os.walk skips a folder that is gone by the time it is listed (Path.rglob raised
    # FileNotFoundError and the command opening the index failed with it).
    for top, _dirs, names in os.walk(folder):
        for name in names:
            try:
                st = os.lstat(os.path.join(top, name))
            except OSError:
                continue  # removed meanwhile
            if stat.S_ISREG(st.st_mode):
                yield st


def holes(folder: Path) -> int:
    """Bytes of the files under folder that are not allocated yet (sparse)."""
    return sum(max(0, st.st_size - st.st_blocks * 512) for st in _files(folder))


def allocated(folder: Path) -> int:
    """Bytes the files under folder take on the filesystem (as `du`)."""
    return sum(st.st_blocks * 512 for st in _files(folder))


def need_to_compact(shard: Path) -> int:
    """Free space a compaction may use: it writes the merged segments anew before it drops the
    old ones, so as much again as they take (plus what opening them allocates on a memory
    filesystem), and the reserve."""
    segments = shard / "segments"
    if not segments.is_dir():
        return RESERVE_BYTES
    return need_to_open(shard) + allocated(segments)


def need_to_open(shard: Path) -> int:
    """Free space opening the shard may use: the reserve, plus on a memory filesystem the holes
    of its segments (Edge's opening reads them all). On a disk, reading a hole costs nothing."""
    segments = shard / "segments"
    if segments.is_dir() and _memory_backed(mount_point(shard)):
        return RESERVE_BYTES + holes(segments)
    return RESERVE_BYTES


def shortage(*, free: int, need: int, mount: Path, where: Path, doing: str) -> DiskFull:
    return DiskFull(
        f"only {free // MB} MB free on {mount} (the filesystem holding {where}); "
        f"{doing} needs ~{-(-need // MB)} MB",
        f"free space on {mount} (df -h {mount}), or move the index elsewhere: set XDG_DATA_HOME "
        "or qdrant.path in config.json; nothing indexed is lost, re-run the command once there is room",
    )


def no_room(path: Path, exc: OSError) -> DiskFull | None:
    """ENOSPC (or a quota) writing one of monodex's own files, as an error naming what to free."""
    if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    mount = mount_point(path)
    return DiskFull(
        f"could not write {path}: {exc.strerror} ({free_bytes(path) // MB} MB free on {mount})",
        f"free space on {mount} (df -h {mount}), then re-run the command",
    )


def require(where: Path, *, need: int, doing: str) -> None:
    """Raise DiskFull unless `need` bytes are free on the filesystem holding `where`."""
    free = free_bytes(where)
    if free < need:
        raise shortage(free=free, need=need, mount=mount_point(where), where=where, doing=doing)


# --- the backstop ---------------------------------------------------------------------------
_handler: object = None  # the C callback must outlive its installation


def guard_sigbus(where: Path) -> None:
    """On SIGBUS print what happened and exit 1 instead of dying silently with 135.

    Python's own signal handlers cannot do this: they run later, between bytecodes, while the
    faulting instruction restarts and faults forever. A C-level handler (through ctypes) runs at
    once; nothing can continue after the fault, so it only writes the message and _exit(1)s. The
    WAL makes that safe: the next open replays what was acknowledged.
    """
    import ctypes

    global _handler
    # the process's own symbols, libc's among them: find_library("c") ran `ldconfig -p` (6.5 ms)
    libc = ctypes.CDLL(None, use_errno=True)
    kind = ctypes.CFUNCTYPE(None, ctypes.c_int)
    mount = mount_point(where)

    def on_sigbus(_signum: int) -> None:
        try:
            free = f"{free_bytes(where) // MB} MB free on {mount}"
        except OSError:
            free = f"free space on {mount} unknown"
        os.write(
            2,
            (
                f"error: a bus error (SIGBUS) stopped monodex while it used the index at {where}; "
                f"the disk holding it is probably full ({free})\n"
                f"hint: free space on {mount} (df -h {mount}), or move the index elsewhere: set "
                "XDG_DATA_HOME or qdrant.path in config.json; the index recovers on its next open\n"
            ).encode(errors="replace"),
        )
        os._exit(1)

    handler = kind(on_sigbus)
    libc.signal.argtypes = [ctypes.c_int, kind]
    libc.signal.restype = ctypes.c_void_p
    libc.signal(signal.SIGBUS, handler)
    _handler = handler
