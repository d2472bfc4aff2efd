"""Keeping a catalog's co-change counts current: each crawl and refresh walks the commits not
counted yet (usually a handful; the whole history the first time: rushstack's 23,157 commits in
about 2 s) and adds them to `store/cochanges.py`'s table."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

from monodex.indexer.git import history
from monodex.indexer.store.cochanges import Counts, Table


def update(db: Path, repo: Path, commit: str, keep: Callable[[str], bool], policy: str) -> int:
    """Counts the commits reachable from `commit` that are not counted yet; returns how many."""
    table = Table(db, policy)
    try:
        try:
            text = history.log(repo, commit, table.tips())
        except subprocess.CalledProcessError:
            text = history.log(repo, commit)  # a tip no longer in the repository: walk it all
        if not text.strip():  # reachable from a tip already: nothing to read or write
            return 0
        seen = table.seen()
        moved: dict[str, str] = {}
        new = list(history.follow_moves((c for c in history.parse_log(text) if c.oid not in seen), moved))
        counts = Counts()
        kept: dict[str, bool] = {}  # a path recurs in many commits: the policy is asked once
        for c in new:
            files = history.counted(c.files, lambda f: kept[f] if f in kept else kept.setdefault(f, keep(f)))
            if files is not None:
                counts.add(files)
        table.add((c.oid for c in new), counts, moved, commit)
        return len(new)
    finally:
        table.close()
