"""A repository's commit history as lists of files (issue 14's history signal): which files each
commit touched, under the names they have today.

Only paths are read: no commit message or author. The counting is `store/cochanges.py`, the
walk that keeps the counts current `write/history.py`.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

# A commit touching more indexed files than this is a bulk change (a version bump, a rename, a
# formatting pass): it says nothing about which files belong together and is not counted.
MAX_FILES = 30
# The newest commits a walk reads: a first crawl of a repository with a very long history counts
# the recent past (what its files do today) in seconds, not its whole past in minutes.
MAX_COMMITS = 50_000


@dataclass(frozen=True)
class Commit:
    oid: str
    date: str  # committer date, UTC "2026-08-22T00:13:39Z" (to evaluate by date: never stored)
    files: tuple[str, ...]
    moves: tuple[tuple[str, str], ...] = ()  # (old path, new path) of each file it renamed
    parents: tuple[str, ...] = ()  # first parent first (evaluate/past.py: when it landed)


def log(repo: Path, commit: str, stop_at: Sequence[str] = ()) -> str:
    """`git log` of the commits reachable from `commit` but not from any of `stop_at`, newest
    first, with the files each touched and its renames. Renames are found by content (`-M`),
    which reads the files a commit added and deleted. A partial clone lacks most of them and git
    would fetch each from its remote, so there, and wherever a file cannot be read, only exact
    renames are followed (`-M100%`: found by object id, no content read; a folder moved whole)."""
    env = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}  # honoured by recent git; older: the check below
    tries = ["-M100%"] if _partial_clone(repo) else ["-M", "-M100%"]
    for renames in tries:
        cmd = ["git", "-C", str(repo), "log", f"--max-count={MAX_COMMITS}", "--format=%x00%H %ct %P"]
        cmd += ["--name-status", renames, commit]
        if stop_at:
            cmd += ["--not", *stop_at]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=600, env=env)
            return done.stdout
        except subprocess.CalledProcessError as e:
            failed = e
    raise failed


def _partial_clone(repo: Path) -> bool:
    """Whether the repository was cloned with a filter (`--filter=blob:none`, ...)."""
    cmd = ["git", "-C", str(repo), "config", "--get", "extensions.partialclone"]
    return subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=30).returncode == 0


def parse_log(text: str) -> Iterator[Commit]:
    """Commits of `log()`'s output, in the order git printed them."""
    for block in text.split("\0")[1:]:
        head, _, rest = block.partition("\n")
        oid, stamp, *parents = head.split()  # a root commit has no parent (and a trailing space)
        date = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        files, moves = [], []
        for line in rest.splitlines():
            status, *names = line.split("\t")
            if not names:
                continue
            if status[:1] == "R" and len(names) == 2:
                moves.append((names[0], names[1]))
            files.append(names[-1])
        yield Commit(oid, date, tuple(files), tuple(moves), tuple(parents))


def follow_moves(newest_first: Iterable[Commit], moved: dict[str, str] | None = None) -> Iterator[Commit]:
    """The commits with each file under its latest name: a file renamed since a commit is
    counted under its new name, so its past still counts after a move (a package moved to
    another folder keeps its history). `moved` (old name -> latest) fills in as the walk goes
    back in time."""
    moved = {} if moved is None else moved
    for c in newest_first:
        files = tuple(moved.get(f, f) for f in c.files)
        for old, new in c.moves:
            moved[old] = moved.get(new, new)
        yield Commit(c.oid, c.date, files, parents=c.parents)


def counted(files: Iterable[str], keep: Callable[[str], bool]) -> list[str] | None:
    """The files of one commit that count, sorted, or None for a commit that does not count."""
    picked = sorted({f for f in files if keep(f)})
    return picked if 0 < len(picked) <= MAX_FILES else None
