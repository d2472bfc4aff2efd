"""Collections of models other than the configured one, left after `embedder.model` changed
(store/collections.py): listed with their size and the labels they hold, and removed when nothing
needs them any more (`monodex gc --old-models`).

Only the configured collection (`qdrant.collection`) answers for a previous model, and only a
label the new model's collection does not hold fully hybrid yet (indexer/ops/search.py `_generation`):
while it answers one, it is kept. Removing it points `qdrant.collection` at the new model's
collection, so that one stays the collection everything reads and writes (with the configured one
gone, `collections.active` would otherwise start an empty one under the old name). Edge folders
only: a Qdrant server's collections are listed and dropped with its own API.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from monodex.indexer.points import labelmeta
from monodex.indexer.read import search as searching
from monodex.indexer.session import Session
from monodex.indexer.store import open_store
from monodex.indexer.store.base import Store
from monodex.indexer.store.collections import META

from monodex.errors import UsageError
from monodex.schema.labels import OldCollection
from monodex.settings import config


@dataclass(frozen=True)
class Old:
    collection: str
    embedder_id: str
    bytes: int
    labels: tuple[str, ...]
    answering: tuple[str, ...]  # labels whose searches it still answers

    def as_json(self) -> OldCollection:
        return OldCollection(
            collection=self.collection,
            embedder_id=self.embedder_id,
            bytes=self.bytes,
            labels=list(self.labels),
            answering=list(self.answering),
        )


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def _complete(store: Store, label_id: str) -> bool:
    """The new model's collection holds the label fully hybrid: the old one answers it no more."""
    state = labelmeta.read(store, label_id) if store.info() is not None else None
    return state is not None and state.crawl_complete and searching.coverage(store, label_id)[1] == 0


def _root(s: Session) -> Path:
    if s.cfg.qdrant.url:
        raise UsageError(
            "--old-models reads the embedded Qdrant Edge folder; this index is on a Qdrant server",
            "list and delete its collections with the server's API (GET /collections)",
        )
    return s.cfg.qdrant.path or s.paths.shard_dir


def find(s: Session) -> list[Old]:
    """Every collection of this installation but the one the configured model uses."""
    root, base, active = _root(s), s.cfg.qdrant.collection, s.qdrant.collection
    found = []
    for folder in sorted(root.iterdir() if root.is_dir() else ()):
        if folder.name == active or not (folder / META).is_file():
            continue
        if folder.name != base and not folder.name.startswith(f"{base}--"):
            continue  # another installation's collection in a shared folder
        embedder = str(json.loads((folder / META).read_text()).get("embedder_id", ""))
        store = open_store(dataclasses.replace(s.cfg.qdrant, collection=folder.name), s.paths)
        try:
            labels = tuple(st.label_id for st in labelmeta.list_all(store))
        finally:
            store.close()
        answering = tuple(lid for lid in labels if not _complete(s.store, lid)) if folder.name == base else ()
        found.append(Old(folder.name, embedder, _size(folder), labels, answering))
    return found


def remove(s: Session, old: list[Old]) -> str | None:
    """Delete the collections nothing answers from (closing the session first); returns the
    collection `qdrant.collection` now names when the configured one went, else None."""
    root, base, active = _root(s), s.cfg.qdrant.collection, s.qdrant.collection
    s.close()
    renamed = None
    for o in old:
        if o.answering:
            continue
        shutil.rmtree(root / o.collection)
        if o.collection == base:
            cfg = config.load(s.paths)
            qdrant = dataclasses.replace(cfg.qdrant, collection=active)
            config.save(s.paths, dataclasses.replace(cfg, qdrant=qdrant))
            renamed = active
    return renamed
