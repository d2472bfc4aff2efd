"""A repository's commit history as lists of files (issue 14's history signal): which files each
commit touched, under the names they have today.

Only paths are read: no commit message or author. The counting is `history/cochanges.py`, the
walk that keeps the counts current `history/catchup.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from monodex.git import log as gitlog

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
    # its subject line: the words of past change requests point at the files they touched
    # (rank/pastwords.py); only the words' hashes are kept (cochanges.py), never the text
    subject: str = ""


def rename_options(repo: Path) -> list[str]:
    """How to follow renames, the first to try first (monodex/git/log.py)."""
    return gitlog.rename_options(repo)


def walk(repo: Path, commit: str, stop_at: Sequence[str] = (), renames: str = "-M") -> Iterator[Commit]:
    """The newest MAX_COMMITS commits reachable from `commit` but not from any of `stop_at`,
    newest first, with the files each touched and its renames, read as git prints them: a first
    walk of a long history holds one commit at a time. git.cli.Error at the end when git failed
    (what was yielded is then incomplete)."""
    lines = gitlog.files_per_commit_lines(
        repo, commit, stop_at=stop_at, max_commits=MAX_COMMITS, renames=renames
    )
    return _commits(lines)


def _commits(lines: Iterable[str]) -> Iterator[Commit]:
    head: list[str] = []
    subject = ""
    files: list[str] = []
    moves: list[tuple[str, str]] = []
    for line in lines:
        if line.startswith("\0"):
            if head:
                yield _commit(head, subject, files, moves)
            meta, _, subject = line[1:].rstrip("\n").partition("\x01")
            head, files, moves = meta.split(), [], []  # a root commit has no parent
            continue
        status, *names = line.rstrip("\n").split("\t")
        if names and status[:1] == "R" and len(names) == 2:
            moves.append((names[0], names[1]))
        files += names[-1:]
    if head:
        yield _commit(head, subject, files, moves)


def _commit(head: list[str], subject: str, files: list[str], moves: list[tuple[str, str]]) -> Commit:
    oid, stamp, *parents = head
    date = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Commit(oid, date, tuple(files), tuple(moves), tuple(parents), subject)


def log(repo: Path, commit: str, stop_at: Sequence[str] = ()) -> str:
    """walk()'s text at once, with the first rename option git takes (evaluate/run.py)."""
    return gitlog.files_per_commit(repo, commit, stop_at=stop_at, max_commits=MAX_COMMITS)


def parse_log(text: str) -> Iterator[Commit]:
    """Commits of `log()`'s output, in the order git printed them."""
    return _commits(text.splitlines(keepends=True))


def follow_moves(newest_first: Iterable[Commit], moved: dict[str, str] | None = None) -> Iterator[Commit]:
    """The commits with each file under its latest name: a file renamed since a commit is
    counted under its new name, so its past still counts after a move (a package moved to
    another folder keeps its history). `moved` (old name -> latest) fills in as the walk goes
    back in time."""
    moved = {} if moved is None else moved
    for c in newest_first:
        files = tuple(moved.get(f, f) for f in c.files)
        for old, new in c.moves:
            latest = moved.get(new, new)
            if latest == old:  # moved away and back (google/leveldb's `leveldb/`): today's name
                moved.pop(old, None)
            else:
                moved[old] = latest
        yield Commit(c.oid, c.date, files, parents=c.parents, subject=c.subject)


def counted(files: Iterable[str], keep: Callable[[str], bool]) -> list[str] | None:
    """The files of one commit that count, sorted, or None for a commit that does not count."""
    picked = sorted({f for f in files if keep(f)})
    return picked if 0 < len(picked) <= MAX_FILES else None
