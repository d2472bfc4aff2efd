"""Compaction when it helps: after a write command run without a runner, the shard is compacted
once what was written since the last compaction outgrows a share of the index, in a process of
its own (upkeep/compactor.py) that nobody waits for (issue 36).

Why after a crawl and not in the runner: a new process (a `monodex search` with no runner) pays,
every time it opens the shard, for the structures Qdrant Edge builds in memory from the appendable
segment (issue 25: 100 rushstack labels written since the last compaction made a CLI search
1.28x of one label; compacted, 0.97x). The runner opens the shard once, so it pays nothing per
search and compacts at night; it must not compact by day, as Edge's optimize holds the GIL for
the seconds it runs (every client of the runner would wait).

Why in another process: compacting rushstack after its first crawl took 10 s (2 cores), which
the command held before returning, and the shard was locked meanwhile, so the first search
waited too. The other process compacts a copy of the shard and swaps it in (upkeep/aside.py),
locking the shard only to copy it and to swap: the command returns as soon as the label is
searchable, and searches meanwhile open the shard as it is."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from monodex.indexer.store.base import Store
from monodex.indexer.store.edge import EdgeStore

from monodex.disk import diskspace
from monodex.errors import MonodexError
from monodex.observe import logs
from monodex.schema.crawl import Compacted

# A compaction rewrites the whole shard (2.5-6 s at 12,597-36,252 rushstack points without
# vectors, 4.8 s at 12,597 with them), so it waits until the writes since the last one reach a
# quarter of the points: amortized, a point written costs four points compacted, and a new
# process never opens more than a quarter of the shard uncompacted (plus the last write).
SHARE = 0.25
# Below this, opening what is uncompacted costs a few milliseconds: small repositories and tests
# never compact on a crawl.
MIN_WRITES = 2000


def helps(written: int, points: int) -> bool:
    return written >= max(MIN_WRITES, SHARE * points)


def later(store: Store, log_dir: Path) -> Compacted | None:
    """Start compacting in another process when it helps; what was started (for the command's
    answer: `pid`, or `skipped` and why when there is no room for a copy and its compaction),
    else None."""
    written, points = store.uncompacted()
    if not helps(written, points) or not isinstance(store, EdgeStore):
        return None
    done: Compacted = {"written": written, "points": points}
    need = diskspace.allocated(store.dir) + diskspace.need_to_compact(store.dir)
    try:
        diskspace.require(store.dir, need=need, doing="compacting a copy of the index")
    except MonodexError as exc:  # the write it follows succeeded: it must not fail the command
        logs.get("monodex.compaction").warning("compaction.skipped", problem=exc.problem, hint=exc.hint)
        return {**done, "skipped": f"{exc.problem} ({exc.hint})"}
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / "compaction.log", "ab") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "monodex.indexer.upkeep.compactor",
                str(store.dir.parent),
                store.collection,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            start_new_session=True,  # not ended by the terminal's Ctrl-C or hang-up after the command
        )
    return {**done, "pid": proc.pid}
