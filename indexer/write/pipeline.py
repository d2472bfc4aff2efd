"""The bounded crawl pipeline: read+chunk (thread) -> embed (caller) -> upload (thread).

Embedding is the bottleneck (~30 chunks/s on 2 cores), so the other stages run beside it
and the queues are bounded so memory stays flat however large the repository is. In phase one
of a refresh (the default, DESIGN.md "Two phases") the embed stage only copies vectors already
stored for the same text; the chunks left without one are stored pending and phase two
(write/fill.py) adds their vectors.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from monodex.indexer.points import lexical
from monodex.indexer.points.identity import chunk_point_id
from monodex.indexer.prepare.files import FileJob
from monodex.indexer.store.base import Point, Store
from monodex.indexer.write import memory
from monodex.indexer.write.memory import MemoryWatch

from monodex.disk.diskspace import DiskFull
from monodex.errors import MonodexError
from monodex.schema.payload import ChunkPayload, Key

_DONE = object()


class Embeds(Protocol):
    def embed_documents(self, texts: Sequence[str]) -> Any: ...


@dataclass
class PipelineStats:
    files_stored: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_pending: int = 0
    upload_requests: int = 0
    stored_file_ids: set[str] = field(default_factory=set)


class Uploader(threading.Thread):
    """Stores finished files: non-sentinel points first, sentinels only after they landed."""

    def __init__(
        self,
        store: Store,
        *,
        batch_points: int,
        retries: int,
        backoff: float,
        watch: MemoryWatch | None = None,
    ) -> None:
        super().__init__(name="monodex-upload", daemon=True)
        self.store = store
        self.watch = watch
        self.inbox: queue.Queue[Any] = queue.Queue(maxsize=8)
        self.batch_points = batch_points
        self.retries = retries
        self.backoff = backoff
        self.error: BaseException | None = None
        self.stats = PipelineStats()

    def run(self) -> None:
        pending: list[FileJob] = []
        done = False
        try:
            while not done:
                item = self.inbox.get()
                done = item is _DONE
                if not done:
                    pending.append(item)
                if done or sum(len(j.payloads) for j in pending) >= self.batch_points:
                    self._flush(pending)
                    pending = []
        except BaseException as exc:  # noqa: BLE001 - reported to the caller thread
            self.error = exc
            while not done:  # drain so the producer never blocks on a full inbox
                done = self.inbox.get() is _DONE

    def _flush(self, jobs: list[FileJob]) -> None:
        if not jobs:
            return
        body = [_point(j, i) for j in jobs for i in range(1, len(j.payloads))]
        if body:
            self._send(body)
        self._send([_point(j, 0, complete=True) for j in jobs])
        for j in jobs:
            self.stats.files_stored += 1
            self.stats.stored_file_ids.add(j.file_id)
        if self.watch is not None:
            self.watch.stored(
                sum(len(j.payloads) for j in jobs), sum(len(p["text"]) for j in jobs for p in j.payloads)
            )
            if self.watch.should_roll():
                memory.release(self.store, self.watch)

    def _send(self, points: list[Point]) -> None:
        for attempt in range(1, self.retries + 1):
            try:
                self.stats.upload_requests += 1
                self.store.upsert(points)
                return
            except DiskFull:
                raise  # waiting will not make room; its message says what to free
            except MonodexError as exc:
                if attempt == self.retries:
                    raise MonodexError(
                        f"storing {len(points)} chunks failed after {attempt} attempts: {exc.problem}",
                        "nothing was reassigned and the label stays incomplete; "
                        "re-run the same 'monodex crawl' to resume",
                    ) from exc
                time.sleep(self.backoff * attempt)


def _point(job: FileJob, index: int, *, complete: bool = False) -> Point:
    vector = job.vectors[index]
    payload: ChunkPayload = {**job.payloads[index], Key.DENSE_PENDING: vector is None}
    if complete:
        payload[Key.FILE_COMPLETE] = True
    sparse = job.sparse[index] if job.sparse else lexical.document_vector(job.texts[index])
    return Point(
        id=chunk_point_id(job.file_id, index + 1),
        payload=dict(payload),
        dense=None if vector is None else list(vector),
        sparse=sparse if sparse.indices else None,
    )


class EmbedLoop:
    """Runs in the caller's thread: gathers texts across files into model batches; with
    inline=False (phase one) it runs no model and hands each file over at once."""

    def __init__(
        self,
        embedder: Embeds,
        uploader: Uploader,
        *,
        batch_size: int,
        on_progress: Callable[[int, int], None],
        inline: bool = True,
    ) -> None:
        self.inline = inline
        self.embedder = embedder
        self.uploader = uploader
        self.batch_size = batch_size
        self.on_progress = on_progress
        self.waiting: list[FileJob] = []
        self.texts: list[tuple[FileJob, int]] = []
        self.chunks = 0  # run through the model
        self.reused = 0  # vectors copied from stored chunks with the same embedded text
        self.pending = 0  # stored without a vector, for phase two
        self.stored = 0  # chunks handed to the uploader (phase one's progress)
        self.files = 0

    def add(self, job: FileJob) -> None:
        job.vectors = [job.known.get(i) for i in range(len(job.texts))]
        missing = [i for i, v in enumerate(job.vectors) if v is None]
        self.reused += len(job.texts) - len(missing)
        if not self.inline:
            self.pending += len(missing)
            self.stored += len(job.texts)
        if not missing or not self.inline:
            self._hand_over(job)
            self.on_progress(self.files, self.chunks if self.inline else self.stored)
            return
        self.waiting.append(job)
        self.texts.extend((job, i) for i in missing)
        while len(self.texts) >= self.batch_size:
            self._embed(self.texts[: self.batch_size])
            self.texts = self.texts[self.batch_size :]

    def finish(self) -> None:
        if self.texts:
            self._embed(self.texts)
            self.texts = []

    def _embed(self, items: list[tuple[FileJob, int]]) -> None:
        vectors = self.embedder.embed_documents([job.texts[i] for job, i in items])
        for (job, i), vec in zip(items, vectors, strict=True):
            job.vectors[i] = vec
        self.chunks += len(items)
        ready = [j for j in self.waiting if all(v is not None for v in j.vectors)]
        self.waiting = [j for j in self.waiting if j not in ready]
        for job in ready:
            self._hand_over(job)
        self.on_progress(self.files, self.chunks)

    def _hand_over(self, job: FileJob) -> None:
        if self.uploader.error is not None:
            raise self.uploader.error
        self.uploader.inbox.put(job)
        self.files += 1
