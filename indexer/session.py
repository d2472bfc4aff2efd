"""Opening the heavy parts from config: the store, the model, a catalog's repository."""

from __future__ import annotations

from typing import TYPE_CHECKING

from monodex.indexer.store import open_store
from monodex.indexer.store.base import Store

from monodex.config import Config
from monodex.paths import Paths

if TYPE_CHECKING:
    from monodex.indexer.engine import Engine


def store(cfg: Config, paths: Paths) -> Store:
    return open_store(cfg.qdrant, paths)


def engine(cfg: Config) -> Engine:
    from monodex.indexer.embed import Embedder, spec_for
    from monodex.indexer.engine import Engine

    spec = spec_for(cfg.embedder.model)
    return Engine(Embedder(spec, threads=cfg.embedder.threads, batch_size=cfg.embedder.batch_size))
