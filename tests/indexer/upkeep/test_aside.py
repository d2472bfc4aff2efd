"""A compaction nobody waits for (issue 36): a copy of the shard is compacted aside and swapped
in; the shard is locked only to copy and to swap, a write in between drops the copy, and a crash
mid-swap is finished by the next open."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

from monodex.indexer.store.base import Filter
from monodex.indexer.store.edge import META, SWAP, EdgeStore
from monodex.indexer.upkeep import aside, compaction, compactor

from tests.indexer.upkeep.test_compaction import DIM, _pt, _segments, _top


def _written(tmp_path: Path, n: int = 900) -> list[str]:
    rng = random.Random(5)
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=DIM, embedder_id="e")
    s.upsert([_pt(i, rng) for i in range(n)])
    top = _top(s)
    s.close()
    return top


def _meta(tmp_path: Path) -> dict[str, object]:
    return dict(json.loads((tmp_path / "monodex" / META).read_text()))


def test_a_copy_is_compacted_aside_and_swapped_in(tmp_path: Path) -> None:
    top = _written(tmp_path)
    assert _segments(tmp_path) == 1 and _meta(tmp_path)["written"] == 900
    assert compactor.compact(tmp_path, "monodex")["done"] is True
    assert _segments(tmp_path) == 2  # compacted, and an empty appendable one
    assert _meta(tmp_path)["written"] == 0 and SWAP not in _meta(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["monodex"]  # no copy, no leftovers
    s = EdgeStore(tmp_path, "monodex")
    assert _top(s) == top and s.count(Filter()) == 900
    s.close()


def test_a_write_after_the_copy_drops_it(tmp_path: Path) -> None:
    _written(tmp_path)
    store = EdgeStore(tmp_path, "monodex")
    generation = aside.snapshot(store)
    assert generation is not None and store.aside_dir.is_dir()
    writer = EdgeStore(tmp_path, "monodex")  # a crawl that came meanwhile
    writer.upsert([_pt(5000, random.Random(1))])
    writer.close()
    assert aside.swap(store, generation) is False
    assert not store.aside_dir.exists()
    s = EdgeStore(tmp_path, "monodex")
    assert s.count(Filter()) == 901  # nothing lost
    s.close()


def test_a_writer_killed_after_its_first_write_still_drops_the_copy(tmp_path: Path) -> None:
    """The generation moves on before a process's first write, not when it closes."""
    _written(tmp_path)
    store = EdgeStore(tmp_path, "monodex")
    generation = aside.snapshot(store)
    assert generation is not None
    code = (
        "import os, random, sys; sys.path.insert(0, '.');"
        "from monodex.indexer.store.edge import EdgeStore;"
        "from tests.indexer.upkeep.test_compaction import _pt;"
        f"s = EdgeStore(__import__('pathlib').Path({str(tmp_path)!r}), 'monodex');"
        "s.upsert([_pt(7000, random.Random(2))]); os._exit(9)"  # no close: killed
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 9
    assert aside.swap(store, generation) is False
    s = EdgeStore(tmp_path, "monodex")
    assert s.count(Filter()) == 901
    s.close()


def test_a_swap_cut_short_is_finished_by_the_next_open(tmp_path: Path) -> None:
    top = _written(tmp_path)
    store = EdgeStore(tmp_path, "monodex")
    generation = aside.snapshot(store)
    assert generation is not None
    copy = EdgeStore(tmp_path, store.aside_dir.name)
    copy.optimize()
    copy.close()
    # killed mid-swap: marked, and the old segments moved out before the new ones moved in
    meta = _meta(tmp_path)
    (tmp_path / "monodex" / META).write_text(json.dumps({**meta, SWAP: True}))
    trash = tmp_path / ".monodex.replaced"
    trash.mkdir()
    (tmp_path / "monodex" / "segments").rename(trash / "segments")
    s = EdgeStore(tmp_path, "monodex")
    assert _top(s) == top and s.count(Filter()) == 900 and s.uncompacted() == (0, 900)
    s.close()
    assert _segments(tmp_path) == 2 and not trash.exists() and not store.aside_dir.exists()


def test_a_crawl_starts_the_compaction_in_another_process_and_returns(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    top = _written(tmp_path)
    monkeypatch.setattr(compaction, "MIN_WRITES", 1)
    s = EdgeStore(tmp_path, "monodex")
    started = compaction.later(s, tmp_path / "logs")
    assert started is not None and started["written"] == 900 and started["pid"] > 0
    assert _top(s) == top  # the command goes on using the shard; its lock held meanwhile
    s.close()  # the command ends: the compactor takes the lock to copy
    deadline = time.monotonic() + 120
    while _meta(tmp_path)["written"] != 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _meta(tmp_path)["written"] == 0, (tmp_path / "logs" / "compaction.log").read_text()
    s = EdgeStore(tmp_path, "monodex")
    assert _top(s) == top and s.uncompacted() == (0, 900)
    s.close()
    assert _segments(tmp_path) == 2
