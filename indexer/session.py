"""Opening the heavy parts from config: the store, the model, a catalog's repository.

A Session opens each part at most once. The CLI uses one per command; the runner keeps one for its
whole life (the Edge shard stays owned, the model warm), shared by its jobs and socket clients,
so its store is wrapped to serialize calls from those threads.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, cast

from monodex.indexer.store import open_store
from monodex.indexer.store.base import STORE_METHODS, Filter, Record, Store

from monodex.disk.paths import Paths
from monodex.errors import MonodexError
from monodex.schema.payload import Key
from monodex.settings import config
from monodex.settings.config import Config, QdrantConfig

if TYPE_CHECKING:
    from monodex.indexer.engine import Engine


def store(cfg: Config, paths: Paths) -> Store:
    return open_store(cfg.qdrant, paths)


def engine(cfg: Config, paths: Paths | None = None, *, background: bool = False) -> Engine:
    """`background`: the runner's, whose phase two runs at the lowest CPU priority."""
    from monodex.indexer.embed.model import Embedder
    from monodex.indexer.embed.spec import spec_for
    from monodex.indexer.engine import Engine

    spec = spec_for(cfg.embedder.model)
    stamps = paths.model_stamp_dir if paths else None
    e = cfg.embedder
    return Engine(
        Embedder(
            spec,
            threads=e.session_threads,
            workers=e.sessions,
            batch_size=e.batch_size,
            background=background,
            stamp_dir=stamps,
        )
    )


def _default_embedder_id() -> str:
    from monodex.indexer.embed.spec import DEFAULT_EMBEDDER_ID

    return DEFAULT_EMBEDDER_ID


class Session:
    def __init__(
        self,
        cfg: Config,
        paths: Paths,
        *,
        shared: bool = False,
        store: Store | None = None,
        engine: Engine | None = None,
    ) -> None:
        """store and engine: already open parts to use instead (tests, benches); close() closes
        only what the session opened itself."""
        self.cfg = cfg
        self.paths = paths
        self.shared = shared
        self._store: Store | None = store
        self._engine: Engine | None = engine
        self._owns_store = store is None
        self._owns_engine = engine is None
        self._qdrant: QdrantConfig | None = None
        self._previous: tuple[Store, Engine] | tuple[()] | None = None
        self._previous_store: Store | None = None
        self._open = threading.Lock()
        # Set by the runner: wakes its drain job, so a caller waiting for a fresh label need not
        # wait for the next interval.
        self.wake: Callable[[], None] | None = None

    def config(self) -> Config:
        """The current config.json (catalogs may have been added since the session opened); the
        store and model cannot change under an open session."""
        fresh = config.load(self.paths)
        # two_phase is read per refresh (the model and store are not)
        model = dataclasses.replace(fresh.embedder, two_phase=self.cfg.embedder.two_phase)
        if fresh.qdrant != self.cfg.qdrant or model != self.cfg.embedder:
            raise MonodexError(
                "config.json changed its qdrant or embedder settings since the runner started",
                "restart the runner: 'systemctl --user restart monodex-runner' (or stop and start it)",
            )
        return fresh

    @property
    def qdrant(self) -> QdrantConfig:
        """The configured store, with the collection that holds the configured model's vectors
        (store/collections.py: another one after a model change)."""
        if self._qdrant is None:
            from monodex.indexer.embed.spec import spec_for
            from monodex.indexer.store import collections

            embedder_id = spec_for(self.cfg.embedder.model).embedder_id
            self._qdrant = collections.active(self.cfg.qdrant, self.paths, embedder_id)
        return self._qdrant

    @property
    def store(self) -> Store:
        with self._open:
            if self._store is None:
                opened = open_store(self.qdrant, self.paths)
                self._store = cast(Store, Serialized(opened)) if self.shared else opened
            return self._store

    def previous(self) -> tuple[Store, Engine] | None:
        """After a model change: the configured collection, which holds the previous model's
        vectors, and that model, to answer searches until the new model's vectors are complete.
        None when there was no change, or the previous model can no longer be loaded."""
        if self._store is not None and not self._owns_store:
            return None  # a store handed in (tests, benches): no model generations
        if self.qdrant.collection == self.cfg.qdrant.collection:
            return None
        with self._open:
            if self._previous is None:
                self._previous = self._open_previous()
            return self._previous or None

    def _open_previous(self) -> tuple[Store, Engine] | tuple[()]:
        from monodex.indexer.points import labelmeta
        from monodex.indexer.store import collections

        opened = open_store(self.cfg.qdrant, self.paths)
        held = collections.embedder_of(self.cfg.qdrant, self.paths)
        models = {str(st.extra.get(Key.MODEL_SOURCE, "")) for st in labelmeta.list_all(opened)} - {""}
        if held == _default_embedder_id():
            models.add("default")
        for model in sorted(models):
            try:
                embedder = dataclasses.replace(self.cfg.embedder, model=model)
                candidate = engine(dataclasses.replace(self.cfg, embedder=embedder), self.paths)
            except MonodexError:
                continue  # that model's folder is gone: the new collection answers alone
            if candidate.embedder_id == held:
                store = cast(Store, Serialized(opened)) if self.shared else opened
                self._previous_store = store
                return store, candidate
        opened.close()
        return ()

    @property
    def engine(self) -> Engine:
        with self._open:
            if self._engine is None:
                self._engine = engine(self.cfg, self.paths, background=self.shared)
            return self._engine

    def close(self) -> None:
        with self._open:
            if self._store is not None and self._owns_store:
                self._store.close()
            self._store = None
            if self._previous_store is not None:
                self._previous_store.close()
            if self._previous:
                self._previous[1].close()
            self._previous_store, self._previous = None, None
            if self._engine is not None and self._owns_engine:
                self._engine.close()  # the embedding sessions' threads hold ~150 MB each
            self._engine = None if self._owns_engine else self._engine

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


class Serialized:
    """A Store whose calls run one at a time: a search from a socket client interleaves with a
    crawl's batches instead of racing them inside the engine.

    Every method of the Store Protocol is wrapped by name (a method added to the Protocol is
    serialized without a line here); only scroll differs, holding the lock per page."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.lock = threading.RLock()
        for name in STORE_METHODS:
            if name != "scroll":
                setattr(self, name, self._locked(getattr(inner, name)))

    def _locked(self, method: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                return method(*args, **kwargs)

        return call

    def scroll(
        self,
        flt: Filter,
        *,
        with_vectors: bool = False,
        batch: int = 1000,
        payload_keys: Sequence[str] | None = None,
    ) -> Iterator[Record]:
        pages = self.inner.scroll(flt, with_vectors=with_vectors, batch=batch, payload_keys=payload_keys)
        while True:
            with self.lock:  # held while the adapter fetches the next page, not while we yield
                record = next(pages, None)
            if record is None:
                return
            yield record
