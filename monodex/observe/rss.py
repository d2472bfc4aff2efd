"""Resident memory of a process, read from /proc (Linux): None where there is no /proc, or when
the process is gone. Stdlib only: `monodex status` reads a running crawl's figures with it."""

from __future__ import annotations

import os

_PAGE_MB = os.sysconf("SC_PAGE_SIZE") / (1 << 20) if hasattr(os, "sysconf") else 4096 / (1 << 20)


def resident_mb(pid: int | str = "self") -> float | None:
    """The process's resident set now (anonymous and file-backed pages, as ps shows it)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:
            return int(f.read().split()[1]) * _PAGE_MB
    except (OSError, IndexError, ValueError):
        return None


def peak_mb(pid: int | str = "self") -> float | None:
    """The process's peak resident set so far (VmHWM: what ru_maxrss reports at its end)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) / 1024
    except (OSError, IndexError, ValueError):
        return None
    return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process has that pid now
        return True
    return True


def trim() -> None:
    """Give the heap's free memory back to the system (glibc's malloc_trim; nothing elsewhere).
    After a roll, Qdrant Edge has freed ~150 MB per 25,600 points that malloc would otherwise keep:
    the next rolls came after fewer points each, and resident memory never came down."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass
