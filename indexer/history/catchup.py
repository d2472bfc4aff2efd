"""Keeping a catalog's co-change counts current: each crawl and refresh walks the commits not
counted yet (usually a handful; the whole history the first time: rushstack's 23,157 commits in
about 2 s) and adds them to `history/cochanges.py`'s table."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from monodex.indexer.history import changed, subjects
from monodex.indexer.history.cochanges import WINDOW, Counts, CountTable
from monodex.indexer.points import lexical

from monodex.git import cli as gitcli


def update(db: Path, repo: Path, commit: str, keep: Callable[[str], bool], policy: str) -> int:
    """Counts the commits reachable from `commit` that are not counted yet; returns how many."""
    table = CountTable(db, policy)
    try:
        boundary = shallow_boundary(repo)
        # A clone deepened since (`git fetch --unshallow`, `--deepen`) has older commits behind
        # the tips walked already: a walk stopping at the tips would never count them. It walks
        # everything once; what was counted is skipped (`seen`), so nothing counts twice.
        tips = table.tips() if table.meta(SHALLOW) == boundary else []
        tries: list[tuple[list[str], str]] = [(tips, r) for r in changed.rename_options(repo)] if tips else []
        tries += [([], r) for r in changed.rename_options(repo)]  # a tip no longer there: walk it all
        for n, (stop_at, renames) in enumerate(tries, start=1):
            try:
                counted = _count(table, changed.walk(repo, commit, stop_at, renames), keep, commit)
                table.set_meta(SHALLOW, boundary)
                return counted
            except gitcli.Error:
                if n == len(tries):
                    raise
        return 0
    finally:
        table.close()


SHALLOW = "shallow"  # the meta key of the shallow boundary the counts were walked to


def shallow_boundary(repo: Path) -> str:
    """The commits a shallow clone's history ends at (git's `shallow` file), "" for a whole one."""
    where = gitcli.output(repo, "rev-parse", "--git-path", "shallow")
    if not where:
        return ""
    try:
        oids = (repo / where.strip()).read_text().split()
    except OSError:  # no such file: the clone has its whole history
        return ""
    return " ".join(sorted(oids))


# Commits whose counts are held in memory before they go to the table (one transaction for the
# whole walk still): memory stays flat however long the history is.
_FLUSH_COMMITS = 1000


def _count(table: CountTable, walked: Iterator[changed.Commit], keep: Callable[[str], bool], tip: str) -> int:
    """The walk's commits counted into the table, all or (git failed) none."""
    seen = table.seen()
    moved: dict[str, str] = {}
    oids: list[str] = []
    latest: list[tuple[str, ...]] = []  # the files of the walk's newest changes, newest first
    kept: dict[str, bool] = {}  # a path recurs in many commits: the policy is asked once

    def chunks() -> Iterator[Counts]:
        counts = Counts()
        for n, c in enumerate(changed.follow_moves((c for c in walked if c.oid not in seen), moved), start=1):
            oids.append(c.oid)
            files = changed.counted(c.files, lambda f: kept[f] if f in kept else kept.setdefault(f, keep(f)))
            if files is not None:
                counts.add(files, lexical.query_indices(c.subject))
                if len(latest) < WINDOW and subjects.routine(c.subject) is None:
                    latest.append(tuple(files))
            if n % _FLUSH_COMMITS == 0:
                yield counts
                counts = Counts()
        yield counts

    table.add(oids, chunks(), moved, tip, latest)
    return len(oids)
