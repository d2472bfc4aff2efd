"""The compaction after a crawl without a runner, in a process of its own that nobody waits for
(upkeep/compaction.py starts it): `python -m monodex.indexer.upkeep.compactor FOLDER COLLECTION`.

It compacts a copy of the shard and swaps it in (upkeep/aside.py); one at a time per shard. What
it did goes to the log (`$XDG_STATE_HOME/monodex/logs/compaction.log`)."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path
from typing import NotRequired, TypedDict

from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.upkeep import aside

from monodex.disk import paths
from monodex.errors import MonodexError
from monodex.observe import logs


class Outcome(TypedDict):
    """What a compaction did, for its log line."""

    done: bool
    why: NotRequired[str]  # not done: why
    seconds: NotRequired[float]


def compact(folder: Path, collection: str) -> Outcome:
    """Compact the shard aside and swap it in; what happened."""
    store = EdgeStore(folder, collection)
    started = time.monotonic()
    generation = aside.snapshot(store)
    if generation is None:
        return {"done": False, "why": "the index was busy, or there is no room for a copy and its compaction"}
    copy = EdgeStore(folder, store.aside_dir.name)
    try:
        copy.optimize()
    finally:
        copy.close()
    if not aside.swap(store, generation):
        return {"done": False, "why": "the index was written meanwhile: the next crawl compacts it"}
    return {"done": True, "seconds": round(time.monotonic() - started, 2)}


def main(argv: list[str]) -> int:
    folder, collection = Path(argv[0]), argv[1]
    p = paths.resolve()
    logs.configure(log_file=p.log_dir / "compaction.log")
    log = logs.get("monodex.compaction")
    # One compactor per shard: a second one started meanwhile has nothing to add.
    guard = os.open(folder / f".{collection}.compactor.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(guard, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log.info("compaction.already_running", collection=collection)
        return 0
    try:
        log.info("compaction.done", collection=collection, **compact(folder, collection))
    except MonodexError as exc:
        log.warning("compaction.failed", collection=collection, problem=exc.problem, hint=exc.hint)
        return 1
    finally:
        os.close(guard)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
