"""The runner's door: what its jobs (scheduler/runner.py) ask of the indexer, each typed, under
one name each: a spool entry's refresh, phase two's rounds, the refreshes it queues itself, the
ref poll and the nightly garbage collection and verification."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from monodex.indexer.session import Session

from monodex.observe.progress import OnProgress
from monodex.runner import spool
from monodex.schema.crawl import Filled, PollAnswer, RefreshAnswer
from monodex.schema.labels import NightlyGc, VerifyAnswer

if TYPE_CHECKING:
    from monodex.indexer.write.memory import MemoryWatch


def refresh_label(
    s: Session,
    entry: spool.Request,
    cancel: threading.Event | None = None,
    *,
    progress: OnProgress | None = None,
) -> RefreshAnswer:
    """Move one spool entry's label to where its branch points now (phase one)."""
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.refresh_label(s, entry, cancel, progress=progress)


def fill_round(
    s: Session,
    label_id: str,
    *,
    should_stop: Callable[[], bool],
    lock: threading.Lock,
    watch: MemoryWatch | None = None,
) -> Filled:
    """One round of phase two (follow/refresh.fill_round): the model outside `lock`; `watch`,
    kept across rounds, rolls the store under the memory ceiling (write/memory.py)."""
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.fill_round(s, label_id, should_stop=should_stop, lock=lock, watch=watch).as_json()


def fill_memory(s: Session) -> MemoryWatch:
    """What the fill job's rounds write, against crawl.max_memory_mb: one for all its rounds."""
    from monodex.indexer.write.memory import MemoryWatch

    return MemoryWatch(s.config().crawl.max_memory_mb).phase_two()


def labels_waiting(s: Session) -> list[str]:
    """Labels with chunks waiting for their vector, the most recently refreshed first."""
    from monodex.indexer.write import fill

    return fill.labels_waiting(s.store)


def queue_model_change(s: Session, queue: spool.Spool) -> list[str]:
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.queue_model_change(s, queue)


def queue_uncounted_history(s: Session, queue: spool.Spool) -> list[str]:
    from monodex.indexer.follow import refresh as refreshing

    return refreshing.queue_uncounted_history(s, queue)


def poll_branches(s: Session, queue: spool.Spool, *, now: float) -> PollAnswer:
    """Every catalog's branches against its labels (upkeep/branches.py): moves no hook saw are
    queued, deleted branches marked, and removed after the grace period."""
    from monodex.indexer.upkeep import branches

    return branches.poll(s, queue, now=now).as_json()


def nightly_gc(s: Session) -> NightlyGc:
    """Garbage collected in every catalog, then the index compacted (the night is idle)."""
    from monodex.indexer.upkeep import nightly

    return nightly.gc_every_catalog(s)


def collect_after_crash(s: Session) -> NightlyGc:
    """Garbage a crash left (a killed refresh's files that its retry, at a newer commit, does
    not hold) collected in every catalog, without the nightly compaction: it runs by day."""
    from monodex.indexer.upkeep import nightly

    return nightly.gc_every_catalog(s, optimize=False)


def nightly_verify(s: Session, stop: threading.Event) -> VerifyAnswer:
    """Labels whose branch is gone dropped (catalogs with prune_labels), every label verified and
    its drift repaired."""
    from monodex.indexer.upkeep import nightly

    return nightly.verify_every_label(s, stop)
