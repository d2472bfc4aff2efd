"""Several onnxruntime sessions embedding side by side (issue 36): one InferenceSession does not
use a machine's cores. Its intra-op threads split each text's small matrix products, and at
batch size 1 (the fastest on ~220-token chunks, model.py) they mostly wait for each other: on
16 cores, 16 threads embedded 57-64 chunks/s against 27 with 2. Sessions of their own, each in
its own thread (onnxruntime releases the GIL while it runs), embed different texts at once.

A call's texts, sorted by length, go to the sessions as they come free (each thread takes the
next batch), so the longest texts do not all land on one session; the vectors come back in the
order asked. `background`: the threads run at the lowest CPU priority (nice 19, the runner's fill
job), so a search's query, embedded in its own thread, or a refresh comes first."""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")
BACKGROUND_NICE = 19


class SessionPool:
    """`workers` threads, each with a session of its own: the first thread's is `first()` (the
    embedder's own session), the others' made by `make()` on their first use. Each session holds
    ~130-180 MB (measured with the shipped MiniLM, whatever the options), hence config's cap."""

    def __init__(
        self, workers: int, make: Callable[[], Any], first: Callable[[], Any], *, background: bool = False
    ) -> None:
        self.workers = workers
        self._make, self._first = make, first
        self._background = background
        self._local = threading.local()
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._started = 0

    def close(self) -> None:
        """Stop the threads, and with them their sessions (each thread's own, ~150 MB): a
        process that opens many embedders (the tests, a runner reopening its session) would
        otherwise keep every one of them."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _session(self) -> Any:
        own = getattr(self._local, "session", None)
        if own is None:
            with self._lock:
                first, self._started = self._started == 0, self._started + 1
            own = self._local.session = self._first() if first else self._make()
        return own

    def map(self, run: Callable[[Any, Sequence[int]], T], batches: Sequence[Sequence[int]]) -> Iterator[T]:
        """run(session, batch) for each batch on the pool's sessions; results in batch order."""
        with self._lock:
            if self._executor is None:
                # the initializer holds nothing of the pool: a pool nobody closed is still freed
                # with its embedder (its executor's threads end when the executor is collected)
                self._executor = ThreadPoolExecutor(
                    self.workers,
                    thread_name_prefix="monodex-embed",
                    initializer=_start,
                    initargs=(self._background,),
                )
        return self._executor.map(lambda batch: run(self._session(), batch), batches)


def _start(background: bool) -> None:
    # On Linux a thread's nice applies to it alone (and to threads it starts); elsewhere the same
    # call would renice a process of that number.
    if background and sys.platform == "linux":
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), BACKGROUND_NICE)
