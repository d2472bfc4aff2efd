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
