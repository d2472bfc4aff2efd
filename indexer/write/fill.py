"""Phase two of a label refresh (DESIGN.md "Two phases"): add dense vectors to the chunks that
phase one stored without them.

Phase one makes a label reflect its commit for lexical search in seconds; this is the model's
work, done after it and resumable at any point: a chunk's `dense_pending` flag is cleared only
together with its vector, so a kill leaves nothing half-done, and the next fill picks up the
chunks still flagged. Identical embedded text is embedded once (and never again when a stored
vector for the same text exists), as in a one-phase crawl.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from monodex.indexer.points import filters, labelmeta, membership, overlaymeta
from monodex.indexer.points.payloads import stored_embed_text, text_hash
from monodex.indexer.points.stored import stored_vectors as stored_vectors  # re-exported
from monodex.indexer.store.base import Match, Store
from monodex.indexer.write import memory
from monodex.indexer.write.memory import MemoryWatch

from monodex.observe import logs
from monodex.schema.crawl import Filled
from monodex.schema.payload import Key

# Chunks taken per round: one read, one vector update (~8 s of model time on 2 cores at 256).
ROUND = 128
# Texts embedded between two looks at should_stop: ~0.5 s of model time on 2 cores, the longest a
# handed-over command or a due refresh waits for a fill round to yield.
SLICE = 8
_KEYS = (
    Key.RELATIVE_PATH,
    Key.PACKAGE_NAME,
    Key.SYMBOL_NAME,
    Key.CHUNK_TYPE,
    Key.CHUNK_KIND,
    "text",
    Key.EMBEDDED_TEXT_HASH,
)

FillProgress = Callable[[int, int], None]  # chunks given a vector, chunks pending at the start


class Embeds(Protocol):
    embedder_id: str

    def embed_documents(self, texts: Sequence[str]) -> Any: ...


@dataclass
class FillReport:
    label_id: str
    pending_before: int = 0
    filled: int = 0  # points given a vector
    embedded: int = 0  # texts run through the model
    reused: int = 0  # points given a stored vector of the same text
    pending_after: int = 0
    seconds: float = 0.0
    stopped: bool = False  # asked to stop (or to yield) before every chunk had its vector

    def as_json(self) -> Filled:
        return Filled(
            label_id=self.label_id,
            pending_before=self.pending_before,
            filled=self.filled,
            embedded=self.embedded,
            reused=self.reused,
            pending_after=self.pending_after,
            seconds=round(self.seconds, 3),
            stopped=self.stopped,
        )


def pending(store: Store, label_id: str) -> int:
    return store.count(filters.label_pending(membership.of(store, label_id)))


def labels_waiting(store: Store) -> list[str]:
    """Label ids with chunks waiting for their vector, the most recently refreshed first (the
    label a user just moved is the one they are searching). Worktree overlays come first: their
    files are the ones being edited, and searched, right now (points/overlaymeta.py)."""
    overlays = sorted(overlaymeta.list_all(store), key=lambda o: -o.updated_at_unix_secs)
    states = sorted(labelmeta.list_all(store), key=lambda st: -st.updated_at_unix_secs)
    ids = [o.current for o in overlays if o.current] + [st.label_id for st in states]
    return [i for i in ids if pending(store, i)]


def fill(
    store: Store,
    embedder: Embeds,
    label_id: str,
    *,
    should_stop: Callable[[], bool] = lambda: False,
    progress: FillProgress | None = None,
    round_size: int = ROUND,
    rounds: int | None = None,
    watch: MemoryWatch | None = None,
) -> FillReport:
    """Give every pending chunk of the label its vector, a round at a time, until none is left,
    `rounds` rounds were done, or should_stop() says so (checked between rounds). With `watch`,
    the store rolls as a crawl's does, to stay under the memory ceiling (write/memory.py)."""
    t0 = time.monotonic()
    report = FillReport(label_id, pending_before=pending(store, label_id))
    done = 0
    while report.pending_before and (rounds is None or done < rounds):
        done += 1
        if should_stop():
            report.stopped = True
            break
        prepared = prepare_round(store, embedder, label_id, round_size=round_size)
        if prepared is None:
            break
        prepared.write(store, report, watch)
        if progress is not None:
            progress(report.filled, report.pending_before)
    report.pending_after = pending(store, label_id)
    report.stopped = report.stopped or bool(report.pending_after and rounds is not None)
    report.seconds = time.monotonic() - t0
    return report


@dataclass
class Round:
    """A round's vectors, computed without holding the runner's write lock: a point's text never
    changes (its id is its content's), so a vector computed for it stays right whatever a
    refresh does meanwhile; a point deleted meanwhile is skipped by set_dense."""

    records: list[Any]
    vectors: dict[str, Any]  # embedded_text_hash -> vector
    embedded: set[str]  # hashes run through the model in this round (the rest were stored)

    def write(self, store: Store, report: FillReport, watch: MemoryWatch | None = None) -> None:
        """The round's only write: short, so the runner's lock is held for it alone (and for a
        roll, when `watch` says the memory the store holds for these writes must be released)."""
        records = [r for r in self.records if r.payload[Key.EMBEDDED_TEXT_HASH] in self.vectors]
        pairs = [(rec.id, self.vectors[rec.payload[Key.EMBEDDED_TEXT_HASH]]) for rec in records]
        filled = store.set_dense(pairs)
        report.filled += filled
        if watch is not None:
            watch.stored(filled, 0)
            if watch.should_roll():
                memory.release(store, watch)
        report.embedded += len(self.embedded)
        report.reused += sum(1 for rec in records if rec.payload[Key.EMBEDDED_TEXT_HASH] not in self.embedded)


def prepare_round(
    store: Store,
    embedder: Embeds,
    label_id: str,
    *,
    round_size: int = ROUND,
    should_stop: Callable[[], bool] = lambda: False,
) -> Round | None:
    """Read a round of the label's pending chunks and compute their vectors (None: none pending).
    should_stop() is asked between slices of SLICE texts: a stopped round keeps what it has
    embedded, so yielding to foreground work costs at most one slice of model time."""
    flt = filters.label_chunks(membership.of(store, label_id), Match(Key.DENSE_PENDING, True))
    records = list(itertools.islice(store.scroll(flt, batch=round_size, payload_keys=_KEYS), round_size))
    if not records:
        return None
    texts: dict[str, str] = {}  # embedded_text_hash -> the text to embed
    for rec in records:
        text = stored_embed_text(rec.payload)
        key = str(rec.payload.get(Key.EMBEDDED_TEXT_HASH) or "")
        if key != text_hash(text):  # cannot happen for chunks this version stored; never loop on it
            logs.get("monodex.fill").warning("fill.text_mismatch", point=rec.id)
            key = text_hash(text)
        rec.payload[Key.EMBEDDED_TEXT_HASH] = key
        texts.setdefault(key, text)
    vectors = stored_vectors(store, embedder.embedder_id, sorted(texts))
    missing = [h for h in texts if h not in vectors]
    embedded: set[str] = set()
    step = SLICE * int(getattr(embedder, "parallel", 1))  # sessions side by side take a slice each
    for start in range(0, len(missing), step):
        if start and should_stop():
            break  # at least one slice per round: a round always makes progress
        part = missing[start : start + step]
        vectors.update(zip(part, embedder.embed_documents([texts[h] for h in part]), strict=True))
        embedded.update(part)
    return Round(records, vectors, embedded)
