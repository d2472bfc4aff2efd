"""Stores: the Qdrant Edge shard (default) or a Qdrant server, behind one Protocol."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from monodex.indexer.store.base import Store

    from monodex.disk.paths import Paths
    from monodex.settings.config import QdrantConfig


def open_store(config: QdrantConfig, paths: Paths) -> Store:
    """Adapters are imported here, lazily: the hook path must never load Qdrant."""
    if config.url:
        from monodex.indexer.store.server import ServerStore

        return ServerStore.from_url(
            config.url, config.api_key, config.collection, api_key_env=config.api_key_env
        )
    from monodex.indexer.store.edge import EdgeStore

    return EdgeStore(config.path or paths.shard_dir, config.collection)
