"""The `git` executable, run the one way monodex runs it: `git -C repo ARGS`, output captured,
bounded in time. Imported by refs, status and log only (the hook path reads files instead:
starting a process costs ms, importing subprocess too)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

# What running git raises: not found, not runnable, timed out, or failed with check=True.
Failed = (OSError, subprocess.SubprocessError)
Error = subprocess.CalledProcessError


def run(
    repo: Path, *args: str, check: bool = True, timeout: float = 10, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`git -C repo ARGS`, its output as text; raises one of `Failed` when git cannot run, times
    out or (with `check`) fails."""
    argv = ["git", "-C", str(repo), *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=check, env=env)


def run_bytes(
    repo: Path, *args: str, check: bool = True, timeout: float = 10, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """As run(), its output as bytes (paths git prints with -z, text in any encoding)."""
    argv = ["git", "-C", str(repo), *args]
    return subprocess.run(argv, capture_output=True, timeout=timeout, check=check, env=env)


def output(repo: Path, *args: str, check: bool = True) -> str | None:
    """What `git -C repo ARGS` prints, or None when it cannot run (or fails, with `check`)."""
    try:
        return run(repo, *args, check=check).stdout
    except Failed:
        return None


def lines(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> Iterator[str]:
    """What `git -C repo ARGS` prints, line by line as it prints it (a long `git log` is never held
    whole); raises Error at the end when git failed (what was yielded is then incomplete)."""
    argv = ["git", "-C", str(repo), *args]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        yield from proc.stdout
        err, code = proc.stderr.read(), proc.wait()
    if code:
        raise Error(code, argv, stderr=err)
