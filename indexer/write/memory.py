"""A crawl's memory against `crawl.max_memory_mb` (issue 36), and what it tells `monodex status`.

What grows with a crawl's size is the index's in-memory part: Qdrant Edge keeps the segment a
crawl writes into (its payload indexes, and the pages it wrote) in the process until that segment
is compacted, about 9 KB a point (measured: 314 MB for rushstack's 34,045 points, 710 MB for
babel's 78,794). Everything else is bounded by design: files stream through queues of fixed
length in batches (prepare/pool.py, write/produce.py, write/pipeline.py), and what is kept per
file is its path and ids. So the crawl rolls the store (store/edge.py: convert what was written
into a segment on disk, merging nothing, and reopen) before going on would pass the ceiling,
leaving room for the roll itself, which holds about as much again while it runs. Whether it
rolled or not, the crawl is compacted (its segments merged) after it ends, in another process
(upkeep/compaction.py), or, for a crawl the runner ran, by the runner's nightly compaction.

Phase two writes as much: each vector a fill stores moves its point into the segment Edge keeps
in memory (about 15 KB a point with its vector), so a fill rolls the same way (write/fill.py):
unrolled, filling a 100,000-file monorepo's 673,358 chunks would hold them all."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from monodex.indexer.store.base import Store

from monodex.errors import MonodexError
from monodex.observe import crawlstate, logs, rss
from monodex.schema.status import RunningCrawl

EDGE_MB_PER_POINT = 9 / 1024
# Fewer points than this are not worth a roll (~0.27 ms of CPU a point, plus reopening the shard).
MIN_ROLL_POINTS = 4096
# Nor more than this held between two rolls (~145 MB of Edge's memory), however little a roll
# frees: doubling without end let a 100,000-file crawl hold 200,000 points unrolled (5.6 GB).
# A roll holds about twice its points' memory again while it converts them: at 32,768 the
# 100,000-file crawl peaked at 1,236 MB, at 16,384 at 965 MB (41 rolls, 472 s against 457 s).
MAX_ROLL_POINTS = 16_384
# The ceiling is aimed at with this much room: RSS is sampled between batches, not continuously.
HEADROOM = 0.95
REPORT_EVERY_SECONDS = 0.5


# Phase two: each point rewritten with its vector holds about this much until a roll (measured on
# pnpm's fill: 592 -> 768 MB over 11,000 points), and what stays after a roll is mostly the model's
# sessions: rolling every MIN_ROLL_POINTS keeps the fill under a ceiling a roll can reach.
FILL_MB_PER_POINT = 16 / 1024
# After a roll, more than this share of the ceiling resident: what stays is not the index's, and
# rolling more often would not help (phase one; phase two holds more a point: up to HEADROOM).
SETTLED = 0.8


def must_roll(
    total_mb: float,
    held_points: int,
    remaining_points: float,
    ceiling_mb: float,
    per_point: float = EDGE_MB_PER_POINT,
) -> bool:
    """Whether to roll now: `total_mb` resident, `held_points` written since the last roll (Edge
    holds them in memory), `remaining_points` still to write. Not when the crawl ends under the
    ceiling as it is; else before a roll, which holds about as much again while it runs, no
    longer fits."""
    room = ceiling_mb * HEADROOM
    if total_mb + remaining_points * per_point <= room:
        return False
    return total_mb + held_points * per_point >= room


class MemoryWatch:
    """Fed by the crawl's uploader (stored, should_roll, rolled) and progress (report)."""

    def __init__(
        self,
        ceiling_mb: float,
        *,
        state_file: Path | None = None,
        facts: RunningCrawl | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.ceiling = ceiling_mb
        self.state_file = state_file
        self.facts: RunningCrawl = {**(facts or {})}  # catalog, label, commit: shown by status as they are
        self.clock = clock
        self.started_at = clock()
        self.expected_bytes = 0  # of the files still to be stored when the pipeline started
        self.workers: list[int] = []  # pids of the crawl's worker processes
        self.points = 0
        self.text = 0  # characters of chunk text stored: the files' bytes, near enough
        self.since_roll = 0
        self.min_points = MIN_ROLL_POINTS
        self.per_point = EDGE_MB_PER_POINT
        self.settled = SETTLED
        self.recovers = False  # a roll that ends under `settled` brings back the MIN_ROLL_POINTS pace
        self.rolls = 0
        self.peak = 0.0
        self._reported = float("-inf")
        self._progress: RunningCrawl = {}

    def total_mb(self) -> float:
        """The crawl's resident memory now: its process and its workers."""
        pids: list[int | str] = ["self", *self.workers]
        total = sum(rss.resident_mb(p) or 0.0 for p in pids)
        self.peak = max(self.peak, total)
        return total

    def stored(self, points: int, text: int) -> None:
        self.points += points
        self.text += text
        self.since_roll += points

    def _remaining_points(self) -> float:
        if not self.text or not self.expected_bytes:
            return float("inf")  # unknown: plan for a crawl that does not end soon
        return max(0, self.expected_bytes - self.text) * self.points / self.text

    def should_roll(self) -> bool:
        if self.since_roll < self.min_points:
            return False
        return must_roll(
            self.total_mb(), self.since_roll, self._remaining_points(), self.ceiling, self.per_point
        )

    def rolled(self, seconds: float) -> None:
        self.rolls += 1
        self.since_roll = 0
        after = self.total_mb()
        logs.get("monodex.crawl").info("crawl.rolled", rss_mb=round(after), seconds=round(seconds, 2))
        if after <= self.ceiling * self.settled:
            if self.recovers:  # a slow-down after a roll measured before its memory came back ends
                self.min_points = MIN_ROLL_POINTS
        else:  # what stays is not the index's: rolling more would not help
            self.min_points = min(self.min_points * 2, max(MAX_ROLL_POINTS, self.min_points))
            logs.get("monodex.crawl").warning(
                "crawl.memory_ceiling_low",
                rss_mb=round(after),
                max_memory_mb=self.ceiling,
                hint="raise crawl.max_memory_mb in config.json",
            )

    def phase_two(self) -> MemoryWatch:
        """From here on the writes are phase two's (write/fill.py): more held a point, and rolls
        every MIN_ROLL_POINTS while a roll brings the process back under the ceiling (a 700 MB
        ceiling, two model sessions: 590 MB after a roll, which doubled the points between rolls
        at 0.8 and let the fill reach 777 MB)."""
        self.per_point = FILL_MB_PER_POINT
        self.settled = HEADROOM
        self.min_points = MIN_ROLL_POINTS
        self.recovers = True
        return self

    def stop_rolling(self) -> None:
        self.min_points = 1 << 62

    def report(self, files: int, total: int, chunks: int, phase: str) -> None:
        """Progress for status, written at most every REPORT_EVERY_SECONDS."""
        self._progress = {"phase": phase, "files_done": files, "files_total": total, "chunks": chunks}
        now = self.clock()
        if self.state_file is None or now - self._reported < REPORT_EVERY_SECONDS:
            return
        self._reported = now
        crawlstate.write(self.state_file, self.record())

    def record(self) -> RunningCrawl:
        current = self.total_mb()
        return {
            **self.facts,
            **self._progress,
            "pid": os.getpid(),
            "worker_pids": list(self.workers),
            "rss_mb": round(current),
            "peak_rss_mb": round(self.peak),
            "max_memory_mb": self.ceiling,
            "rolls": self.rolls,
            "started_at": self.started_at,
            "updated_at": self.clock(),
        }

    def close(self) -> None:
        if self.state_file is not None:
            crawlstate.remove(self.state_file)


def release(store: Store, watch: MemoryWatch) -> None:
    """Roll the store to release the memory it holds for what was written since the last roll.
    Only for memory: a roll that fails (no room on disk to compact) leaves the work going on."""
    started = time.monotonic()
    try:
        store.roll()
    except MonodexError as exc:
        logs.get("monodex.crawl").warning("crawl.roll_skipped", problem=exc.problem, hint=exc.hint)
        watch.stop_rolling()
        return
    rss.trim()
    watch.rolled(time.monotonic() - started)
