"""Worker processes that prepare a crawl's files (prepare/worker.py), so chunking and lexical
vectors run on other cores than the store's writes.

Phase one is CPU-bound Python: chunking, payloads and lexical vectors were about half of
rushstack's phase one, and the store's writes (converting payloads for Qdrant Edge, which holds
the GIL) the other half; threads share one core's worth of Python, processes do not. Files go to
the workers in batches, round robin, at most `window` batches in flight (memory stays bounded
whatever the repository's size), and come back in the order they went."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from monodex.indexer.prepare import frames
from monodex.indexer.prepare.files import FileJob, FileTask, prepare

from monodex.errors import MonodexError

BATCH_BYTES = 256 * 1024  # file contents per batch: big enough to amortize the pipe, small to stream
BATCH_FILES = 64
_DONE = object()


def _batches(tasks: Iterable[FileTask], max_bytes: int) -> Iterator[list[FileTask]]:
    batch: list[FileTask] = []
    size = 0
    for task in tasks:
        batch.append(task)
        size += len(task.content)
        if size >= max_bytes or len(batch) >= BATCH_FILES:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _put(q: queue.Queue[Any], item: Any, stop: threading.Event) -> None:
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return
        except queue.Full:
            continue


class Pool:
    """`workers` processes; use as a context manager (they are stopped on exit)."""

    def __init__(self, workers: int, budget: int, *, batch_bytes: int = BATCH_BYTES) -> None:
        self.batch_bytes = batch_bytes
        self.window = 2 * workers + 1
        self.procs: list[subprocess.Popen[bytes]] = []
        try:
            for _ in range(workers):
                proc = subprocess.Popen(
                    [sys.executable, "-m", "monodex.indexer.prepare.worker"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                )
                self.procs.append(proc)
                frames.write(self._stdin(proc), {"budget": budget})
        except BaseException:
            self.close(kill=True)
            raise

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, exc_type: object, *_rest: object) -> None:
        self.close(kill=exc_type is not None)

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self.procs]

    def map(self, tasks: Iterable[FileTask]) -> Iterator[FileJob | None]:
        """Each task's job (None for a file without chunks), in the tasks' order. `tasks` is
        consumed in another thread (reading files goes on while this one stores); an exception
        it raises is raised here."""
        order: queue.Queue[Any] = queue.Queue(maxsize=self.window)
        stop = threading.Event()
        finished = False

        def dispatch() -> None:
            try:
                for n, batch in enumerate(_batches(tasks, self.batch_bytes)):
                    proc = self.procs[n % len(self.procs)]
                    _put(order, proc, stop)  # waits while `window` batches are in flight
                    if stop.is_set():
                        return
                    frames.write(self._stdin(proc), batch)
                _put(order, _DONE, stop)
            except BaseException as exc:  # noqa: BLE001 - raised in the consuming thread
                _put(order, exc, stop)

        feeder = threading.Thread(target=dispatch, name="monodex-dispatch", daemon=True)
        feeder.start()
        try:
            while (item := order.get()) is not _DONE:
                if isinstance(item, BaseException):
                    raise item
                yield from self._reply(item)
            finished = True
        finally:
            stop.set()
            if not finished:
                self.close(kill=True)  # a feeder blocked writing to a worker gets a broken pipe
            feeder.join()

    def _reply(self, proc: subprocess.Popen[bytes]) -> list[FileJob | None]:
        assert proc.stdout is not None
        try:
            status, body = frames.read(proc.stdout)
        except EOFError:
            code = proc.wait()
            raise MonodexError(
                f"a worker process preparing files for the index ended (exit code {code})",
                "see the messages above; run the crawl again (with crawl.workers 0 in config.json "
                "to prepare files in the crawl's own process)",
            ) from None
        if status != "ok":
            raise MonodexError(
                f"preparing files for the index failed in a worker process: {body}",
                "this is a bug in monodex: please report it with the message above",
            )
        jobs: list[FileJob | None] = body
        return jobs

    @staticmethod
    def _stdin(proc: subprocess.Popen[bytes]) -> Any:
        assert proc.stdin is not None
        return proc.stdin

    def close(self, *, kill: bool = False) -> None:
        """Ask each worker to end (its stdin closes), or kill it; wait for all of them."""
        for proc in self.procs:
            if kill:
                proc.kill()
            try:
                if proc.stdin is not None:
                    proc.stdin.close()
            except OSError:  # a broken pipe: the worker is gone already
                pass
        for proc in self.procs:
            proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        self.procs = []


def prepare_all(tasks: Iterable[FileTask], budget: int) -> Iterator[FileJob | None]:
    """The same as Pool.map, in this thread (small crawls: a worker's start costs ~0.5 s)."""
    return (prepare(task, budget) for task in tasks)
