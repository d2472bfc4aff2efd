"""A crawl's memory against crawl.max_memory_mb (issue 36): when it rolls the store, and what
it tells status while it runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from monodex.indexer.write.memory import EDGE_MB_PER_POINT, MAX_ROLL_POINTS, MemoryWatch, must_roll

from monodex.observe import crawlstate


def test_a_crawl_that_ends_under_its_ceiling_never_rolls() -> None:
    # rushstack-like: 430 MB resident, 20,000 points held, 14,000 to go, ceiling 700 MB
    assert not must_roll(430, 20_000, 14_000, 700)


def test_a_crawl_that_would_pass_its_ceiling_rolls_while_the_roll_still_fits() -> None:
    held = 25_000
    room = 700 * 0.95
    before = room - held * EDGE_MB_PER_POINT - 1  # a roll now needs as much again: still fits
    assert not must_roll(before, held, 50_000, 700)
    assert must_roll(before + 2, held, 50_000, 700)
    assert must_roll(600, 1, float("inf"), 700) is False  # nothing held: a roll frees nothing


def test_the_watch_rolls_no_sooner_than_min_points() -> None:
    watch = MemoryWatch(1)  # any resident memory is past a 1 MB ceiling
    watch.stored(100, 10_000)
    assert not watch.should_roll()
    watch.stored(watch.min_points, 10_000)
    assert watch.should_roll()
    watch.rolled(0.1)
    assert watch.rolls == 1 and watch.since_roll == 0 and not watch.should_roll()
    assert watch.min_points > 4096  # what stays is not the index's: it rolls less often


def test_a_crawl_over_its_ceiling_still_rolls_every_so_often() -> None:
    """Past its ceiling after every roll (what stays grows with the shard), a 100,000-file crawl
    doubled the points between rolls without end and held 5.6 GB; the points held stay bounded."""
    watch = MemoryWatch(1)
    for _ in range(12):
        watch.stored(watch.min_points, 10_000)
        assert watch.should_roll()
        watch.rolled(0.1)
    assert watch.min_points <= MAX_ROLL_POINTS


def test_phase_two_keeps_rolling_often_while_a_roll_brings_it_under_its_ceiling() -> None:
    """pnpm's fill under a 700 MB ceiling: 590 MB stayed after each roll (the model's sessions),
    over phase one's 0.8 of the ceiling, so the points between rolls doubled and the fill grew to
    777 MB between them. In phase two a roll that ends under the ceiling's headroom keeps the
    pace; one that ends over it still slows down."""
    from monodex.observe import rss

    now = rss.resident_mb("self") or 0.0
    assert now > 0
    ceiling = now / 0.875  # what stays after a roll: past 0.8 of it, under 0.95
    one, two = MemoryWatch(ceiling), MemoryWatch(ceiling).phase_two()
    for watch in (one, two):
        watch.stored(watch.min_points, 0)
        watch.rolled(0.1)
    assert one.min_points > 4096  # phase one: what stays is not the index's
    assert two.min_points == 4096  # phase two: a roll brought it back under; keep the pace
    # the room a roll needs counts phase two's points at 16 KB: 610 + 64 MB passes 665 (0.95 x 700)
    assert must_roll(610, 4096, float("inf"), 700, two.per_point)
    assert not must_roll(610, 4096, float("inf"), 700)  # at phase one's 9 KB: 610 + 36 MB fits
    over = MemoryWatch(now / 1.2).phase_two()  # a roll leaves it over the ceiling: slow down
    over.stored(over.min_points, 0)
    over.rolled(0.1)
    assert over.min_points > 4096
    over.ceiling = now / 0.875  # the next roll ends under it (pnpm's first roll: measured at once,
    over.stored(over.min_points, 0)  # 1,379 MB; 593 MB thirty seconds on): the pace comes back
    over.rolled(0.1)
    assert over.min_points == 4096


def test_the_record_status_reads_is_removed_with_the_crawl(tmp_path: Path) -> None:
    f = crawlstate.new_file(tmp_path)
    watch = MemoryWatch(700, state_file=f, facts={"catalog": "acme", "label": "main"})
    watch.report(3, 10, 42, "index")
    (record,) = crawlstate.running(tmp_path)
    assert record["catalog"] == "acme" and record["files_done"] == 3 and record["files_total"] == 10
    assert record["pid"] == os.getpid() and record["rss_mb"] > 0 and record["max_memory_mb"] == 700
    watch.close()
    assert crawlstate.running(tmp_path) == []


def test_a_record_left_by_a_killed_crawl_is_dropped(tmp_path: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    f = tmp_path / f"{dead.stdout.strip()}-x.json"
    f.write_text(json.dumps({"pid": int(dead.stdout), "catalog": "acme", "label": "main"}))
    assert crawlstate.running(tmp_path) == [] and not f.exists()
