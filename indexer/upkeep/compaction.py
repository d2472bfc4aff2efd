"""Compaction when it helps: a write command run without a runner compacts the shard once what
was written since the last compaction outgrows a share of the index.

Why here and not in the runner: a new process (a `monodex search` with no runner) pays, every
time it opens the shard, for the structures Qdrant Edge builds in memory from the appendable
segment (issue 25: 100 rushstack labels written since the last compaction made a CLI search
1.28x of one label; compacted, 0.97x). The runner opens the shard once, so it pays nothing per
search and compacts at night; it must not compact by day, as Edge's optimize holds the GIL for
the seconds it runs (every client of the runner would wait). A write command is already the
slow part of the user's workflow, shows progress, and holds the shard alone."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from monodex.indexer.store.base import Store

from monodex import logs
from monodex.errors import MonodexError

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


def when_it_helps(store: Store, announce: Callable[[int], None] | None = None) -> dict[str, Any] | None:
    """Compact now when it helps; what was done (for the command's answer), else None.
    `announce(written)` is called before the blocking part starts."""
    written, points = store.uncompacted()
    if not helps(written, points):
        return None
    if announce is not None:
        announce(written)
    started = time.monotonic()
    done: dict[str, Any] = {"written": written, "points": points}
    try:
        store.optimize()
    except MonodexError as exc:  # the write it follows succeeded: it must not fail the command
        logs.get("monodex.compaction").warning("compaction.skipped", problem=exc.problem, hint=exc.hint)
        return {**done, "skipped": f"{exc.problem} ({exc.hint})"}
    return {**done, "seconds": round(time.monotonic() - started, 2)}
