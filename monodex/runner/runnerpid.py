"""Whether a runner is alive, and its pid. Stdlib only: `status`, `doctor`, MCP and the CLI's
socket-or-local choice read it without loading the runner's dependencies.

The runner holds an exclusive flock on its pid file for its whole life, so "alive" never rests on
the pid number alone: the file a killed runner leaves behind, or its pid reused by another process
(the file is under XDG_STATE_HOME and outlives a reboot), reads as "no runner"."""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from monodex.disk.paths import Paths
from monodex.errors import MonodexError

# A reader holds its shared lock for microseconds; a runner starting at that moment tries again.
_HOLD_TRIES = 50


def pid_file(paths: Paths) -> Path:
    return paths.state_dir / "runner.pid"


def running_pid(paths: Paths) -> int | None:
    """The pid of the live runner, or None."""
    try:
        fd = os.open(pid_file(paths), os.O_RDONLY)
    except OSError:
        return None
    try:
        for _ in range(_HOLD_TRIES):
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:  # held: a runner lives
                text = os.pread(fd, 32, 0).strip()
                if text.isdigit():
                    return int(text)
                time.sleep(0.01)  # it took the lock and is writing its pid
            else:
                return None  # nobody holds it: left by a runner that was killed
        return None
    finally:
        os.close(fd)  # also drops our shared lock


@contextlib.contextmanager
def hold(paths: Paths) -> Iterator[None]:
    """Be the runner: the pid file locked and naming this process until the block ends.
    Raises MonodexError when another runner holds it."""
    path = pid_file(paths)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _locked(path)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        try:
            yield
        finally:
            path.unlink(missing_ok=True)  # before the lock drops: a successor makes a new file
    finally:
        os.close(fd)


def _locked(path: Path) -> int:
    owner = ""
    for _ in range(_HOLD_TRIES):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # a runner, or a reader for a few microseconds: look again
            owner = os.pread(fd, 32, 0).strip().decode(errors="replace")
            os.close(fd)
            time.sleep(0.02)
            continue
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        os.close(fd)  # a stopping runner unlinked the file we locked: lock the new one
    raise MonodexError(
        f"a runner is already running (pid {owner or '?'})", f"see 'monodex status' ({path} is locked)"
    )
