"""The first stage of the crawl pipeline (write/pipeline.py): read the files, prepare them
(prepare/: in this thread, or in worker processes for a large crawl) and hand each file's job
over with the vectors already stored for its texts."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from monodex.indexer.git.sources import Reader, SourceFile
from monodex.indexer.points.payloads import FileInfo
from monodex.indexer.points.stored import any_vectors, stored_vectors
from monodex.indexer.prepare.files import FileJob, FileTask
from monodex.indexer.prepare.pool import Pool, prepare_all
from monodex.indexer.store.base import Store

from monodex.errors import Interrupted
from monodex.schema.payload import Key

DONE = object()
# Chunks whose stored vectors are looked up in one request.
LOOKUP_BATCH = 256


def put(q: queue.Queue[Any], item: Any, stop: threading.Event) -> bool:
    """Put unless the consumer stopped: a producer never blocks on a queue nobody reads."""
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


class Producer(threading.Thread):
    """Fills `jobs` with FileJobs, then DONE; or with the exception that stopped it."""

    def __init__(
        self,
        store: Store,
        *,
        embedder_id: str,
        budget: int,
        workers: int,
        lookup: bool,
        files: Sequence[SourceFile],
        infos: Mapping[str, FileInfo],
        labels: Mapping[str, list[str]],
        reader: Reader,
        cancelled: Callable[[], bool],
        on_workers: Callable[[list[int]], None] = lambda pids: None,
    ) -> None:
        super().__init__(name="monodex-produce", daemon=True)
        self.store, self.embedder_id, self.budget, self.workers = store, embedder_id, budget, workers
        self.files, self.infos, self.labels, self.reader = files, infos, labels, reader
        self.lookup, self.cancelled, self.on_workers = lookup, cancelled, on_workers
        self.jobs: queue.Queue[Any] = queue.Queue(maxsize=32)
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            # Stored vectors are looked up for a batch of files at once, and not at all in an
            # index that holds none of this model (a one-phase crawl adds some as it goes).
            lookup = self.lookup or any_vectors(self.store, self.embedder_id)
            batch: list[FileJob] = []
            chunks = 0
            for job in self._prepared():
                if job is None:
                    continue
                batch.append(job)
                chunks += len(job.payloads)
                if chunks >= LOOKUP_BATCH:
                    self._hand(batch, lookup=lookup)
                    batch, chunks = [], 0
            self._hand(batch, lookup=lookup)
            put(self.jobs, DONE, self.stop)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller thread
            put(self.jobs, exc, self.stop)

    def _prepared(self) -> Iterator[FileJob | None]:
        if self.workers <= 0:
            yield from prepare_all(self._tasks(), self.budget)
            return
        with Pool(self.workers, self.budget) as pool:
            self.on_workers(pool.pids)
            yield from pool.map(self._tasks())

    def _tasks(self) -> Iterator[FileTask]:
        for f, content in self.reader(self.files):
            if self.stop.is_set():
                return
            if self.cancelled():
                raise Interrupted("the crawl was stopped", "run it again to resume")
            info = self.infos[f.relative_path]
            yield FileTask(info, f, content, tuple(self.labels.get(info.file_id, ())))

    def _hand(self, batch: list[FileJob], *, lookup: bool) -> None:
        """The batch's jobs onto the queue, each with the vectors stored for its texts."""
        hashes = sorted({str(p[Key.EMBEDDED_TEXT_HASH]) for j in batch for p in j.payloads})
        found = stored_vectors(self.store, self.embedder_id, hashes) if lookup else {}
        for job in batch:
            hashes = [str(p[Key.EMBEDDED_TEXT_HASH]) for p in job.payloads]
            job.known = {i: found[h] for i, h in enumerate(hashes) if h in found}
            if not put(self.jobs, job, self.stop):
                return
