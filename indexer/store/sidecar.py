"""What a collection was built with (embedder, dimension), and the mismatch error."""

from __future__ import annotations

from monodex.errors import MonodexError


def check(collection: str, *, have_dim: int, have_embedder: str | None, dim: int, embedder_id: str) -> None:
    if have_dim == dim and (have_embedder in (None, embedder_id)):
        return
    raise MonodexError(
        f"collection {collection!r} holds vectors of {have_embedder or 'an unknown embedder'} "
        f"({have_dim} dims); the configured model is {embedder_id} ({dim} dims)",
        "vectors of two models never mix: set qdrant.collection to a new name in config.json "
        "and re-crawl your labels, or switch embedder.model back",
    )
