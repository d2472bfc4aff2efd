"""The bound on monodex's log files: each is kept under MAX_BYTES, then renamed to `.1` (the
older ones shifted up to `.BACKUPS`, the oldest dropped), so a log never takes more than
(BACKUPS + 1) x MAX_BYTES. runner.log rotates through logging's RotatingFileHandler with these
numbers; hooks.log through `append`, which stays stdlib-only and cheap for the hook path (it
loads no `logging`, and checks the size of the file it has open: one fstat, never a read).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

MAX_BYTES = 5 << 20  # ~30,000 hook runs of ~175 bytes (358 runs measured 62 KB)
BACKUPS = 3


def append(path: Path, text: str, *, max_bytes: int = MAX_BYTES, backups: int = BACKUPS) -> None:
    """Append `text` to the log at `path`; once it reaches max_bytes, rotate it. Raises OSError."""
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        if os.fstat(fh.fileno()).st_size >= max_bytes:
            # Hooks run side by side: the rotation happens under a lock on the file written to,
            # by the first writer that still finds it at `path` (the others see it moved).
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                if _same_file(path, os.fstat(fh.fileno()).st_ino):
                    _rotate(path, backups)
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def _same_file(path: Path, inode: int) -> bool:
    try:
        return os.stat(path).st_ino == inode
    except FileNotFoundError:
        return False


def _rotate(path: Path, backups: int) -> None:
    """path -> path.1 -> ... -> path.N; the oldest is overwritten."""
    for n in range(backups - 1, 0, -1):
        older = path.with_name(f"{path.name}.{n}")
        if older.exists():
            os.replace(older, path.with_name(f"{path.name}.{n + 1}"))
    if backups > 0:
        os.replace(path, path.with_name(f"{path.name}.1"))
    else:
        path.unlink()
