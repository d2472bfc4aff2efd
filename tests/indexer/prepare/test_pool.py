"""Worker processes of phase one (prepare/pool.py): same jobs as the crawl's own thread, in
order; a failure on either side is raised in the crawl, and no worker outlives it."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest
from monodex.indexer.git.sources import SourceFile
from monodex.indexer.points.payloads import FileInfo
from monodex.indexer.prepare.files import FileTask
from monodex.indexer.prepare.pool import Pool, prepare_all

from monodex.errors import MonodexError

BUDGET = 800


def task(i: int) -> FileTask:
    path = f"src/mod{i}.ts"
    text = (
        f"/** Module {i}. */\nexport function run{i}(input: string): string {{\n  return input + '{i}';\n}}\n"
    )
    info = FileInfo("acme", "acme:main", path, "pkg", f"{i:040x}", f"{i:016x}", "e", "c", f"/r/{path}")
    return FileTask(info, SourceFile(path, f"{i:040x}", "typescript", "pkg"), text.encode(), ("k",))


def tasks(n: int) -> Iterator[FileTask]:
    return (task(i) for i in range(n))


def alive(pids: list[int]) -> list[int]:
    out = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        out.append(pid)
    return out


def test_workers_return_what_the_thread_computes_in_the_same_order() -> None:
    with Pool(2, BUDGET, batch_bytes=300) as pool:  # many small batches, round robin
        pids = pool.pids
        got = list(pool.map(tasks(40)))
    want = list(prepare_all(tasks(40), BUDGET))
    assert [j.file_id for j in got if j] == [j.file_id for j in want if j] == [f"{i:016x}" for i in range(40)]
    assert [(j.payloads, j.texts, j.sparse) for j in got if j] == [
        (j.payloads, j.texts, j.sparse) for j in want if j
    ]
    assert alive(pids) == []


def test_a_worker_that_dies_fails_the_crawl_with_a_clear_error() -> None:
    with Pool(1, BUDGET, batch_bytes=300) as pool:
        pids = pool.pids
        os.kill(pids[0], signal.SIGKILL)
        with pytest.raises(MonodexError, match="worker process preparing files .* ended"):
            list(pool.map(tasks(20)))
    assert alive(pids) == []


def test_a_reader_error_is_raised_in_the_crawl_and_stops_the_workers() -> None:
    def failing() -> Iterator[FileTask]:
        yield from tasks(10)
        raise MonodexError("git object abc is missing", "fetch it")

    with Pool(1, BUDGET, batch_bytes=300) as pool:
        pids = pool.pids
        with pytest.raises(MonodexError, match="git object abc is missing"):
            list(pool.map(failing()))
    assert alive(pids) == []


def test_a_crawl_that_stops_early_stops_its_workers() -> None:
    with Pool(1, BUDGET, batch_bytes=300) as pool:
        pids = pool.pids
        jobs = pool.map(tasks(500))
        assert next(jobs) is not None
        jobs.close()  # the consumer gave up (an error downstream, Ctrl-C)
        assert alive(pids) == []
