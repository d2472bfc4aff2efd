"""Which collection holds the configured model's vectors, and which holds the previous model's.

Vectors of two models never mix, so a collection holds one model's. When `embedder.model`
changes, the new model's chunks go to a collection of their own, `<collection>--<model>`: new
ids, since a file id covers the embedder. The configured collection, with the previous model's
vectors, keeps answering a label's searches until the new collection holds that label fully
hybrid (indexer/ops/search.py), and the runner queues a refresh of every label it held.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

from monodex.disk.paths import Paths
from monodex.settings.config import QdrantConfig

META = "monodex-collection.json"  # the Edge adapter's sidecar (store/edge.py writes it)


def embedder_of(config: QdrantConfig, paths: Paths) -> str | None:
    """The embedder whose vectors `config.collection` holds; None when it holds none yet."""
    if config.url:
        from monodex.indexer.store import open_store

        store = open_store(config, paths)
        try:
            info = store.info()
        finally:
            store.close()
        return info.embedder_id if info is not None else None
    meta = (config.path or paths.shard_dir) / config.collection / META
    try:
        value = json.loads(Path(meta).read_text()).get("embedder_id")
    except (OSError, ValueError):
        return None
    return str(value) if value else None


def name_for(base: str, embedder_id: str) -> str:
    """The collection of a model other than the base collection's: readable and unique."""
    slug = re.sub(r"[^a-z0-9]+", "-", embedder_id.lower()).strip("-")[:40] or "model"
    return f"{base}--{slug}-{hashlib.sha256(embedder_id.encode()).hexdigest()[:8]}"


def active(config: QdrantConfig, paths: Paths, embedder_id: str) -> QdrantConfig:
    """The configured collection when it is empty or holds this model; else this model's own."""
    held = embedder_of(config, paths)
    if held is None or held == embedder_id:
        return config
    return replace(config, collection=name_for(config.collection, embedder_id))
