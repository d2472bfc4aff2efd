"""Removing labels: by request (`monodex labels rm`) or because their branch is gone."""

from __future__ import annotations

from monodex.indexer.members import keys as membership
from monodex.indexer.points import filters, labelmeta
from monodex.indexer.points import membership as members
from monodex.indexer.points.labelmeta import require_label
from monodex.indexer.store.base import Store

from monodex import names
from monodex.disk.paths import Paths
from monodex.errors import MonodexError
from monodex.git import refs
from monodex.labels import branchlabels, known_labels
from monodex.observe import logs
from monodex.schema.labels import PurgedCatalog, RemovedLabel
from monodex.schema.payload import Key
from monodex.settings.config import Catalog


def remove_label(
    store: Store, paths: Paths, catalog: str, label: str, *, by_user: bool = True
) -> RemovedLabel:
    """The metadata point removed (the label is gone at once), then its base key from every chunk
    when no other label stands on that base and the chunks left with no key that no label holds
    deleted, then its delta point: a crash in between leaves what gc collects, and no chunk that
    nothing names (verify's orphans).
    by_user: hooks stop tracking its branch (`labels rm`); else (its branch was deleted) a
    branch of that name made later is tracked as any new branch would be."""
    state = require_label(store, catalog, label)
    lid = names.label_id(catalog, label)
    held = members.from_metadata(lid, state.extra, store)
    # What it held, counted first: a label standing on another's base lets go of files without
    # changing a chunk ("0 files left it" for a label indexed on demand, issue 35).
    files, chunks = membership.label_files(store, held), store.count(filters.label_chunks(held))
    labelmeta.delete(store, lid)
    delta = str(state.extra.get(Key.MEMBERSHIP_DELTA) or "")
    bases = members.bases(labelmeta.list_all(store))
    report = membership.release(store, held, members.Held(lid, ""), bases, delta)
    if delta:  # last: until then it names the files being released (no orphan on a crash)
        store.delete([delta])
    if by_user:
        known_labels.remove(paths.state_dir, catalog, label)  # hooks stop tracking its branch
    else:  # its branch is gone: a branch made later may map to that label again
        known_labels.forget_label(paths.state_dir, catalog, label)
        branchlabels.release(paths.state_dir, catalog, label)
    logs.get("monodex.labels").info("label.removed", label=lid, chunks=report.points_deleted)
    return {
        "catalog": catalog,
        "label": label,
        "files": files,
        "chunks_unlabelled": report.points_updated,
        "chunks_deleted": report.points_deleted,
        "chunks_kept": max(0, chunks - report.points_deleted),
    }


def purge_catalog(store: Store, paths: Paths, catalog: str, *, now: float) -> PurgedCatalog:
    """Every label of the catalog removed (as `labels rm` does), then the chunks only it used and
    its crawl leftovers collected; hooks forget its labels, and its history counts go."""
    from monodex.indexer.history import cochanges
    from monodex.indexer.overlay.update import drop
    from monodex.indexer.points import overlaymeta
    from monodex.indexer.upkeep import gc

    removed = [st.label for st in labelmeta.list_all(store, catalog)]
    deleted = sum(drop(store, st) for st in overlaymeta.list_all(store, catalog))
    deleted += sum(remove_label(store, paths, catalog, label)["chunks_deleted"] for label in removed)
    left = gc.collect(store, catalog, dry_run=False, now=now)
    deleted += left.unlabeled_chunks + left.incomplete_chunks
    known_labels.forget(paths.state_dir, catalog)
    branchlabels.forget(paths.state_dir, catalog)
    cochanges.forget(paths.state_dir, catalog)
    return {"catalog": catalog, "labels_removed": removed, "chunks_deleted": deleted}


def branchless_labels(store: Store, paths: Paths, catalog: Catalog) -> list[str]:
    """Commit labels of the catalog whose branch (mapped as the hooks map it) no longer exists."""
    heads = refs.branch_heads(catalog.path)
    if not heads:
        raise MonodexError(
            f"cannot read the branches of {catalog.path}",
            "check the catalog path with 'monodex catalog list'",
        )
    live = set(branchlabels.load(paths.state_dir, catalog.name, heads).by_label)
    return [
        st.label
        for st in labelmeta.list_all(store, catalog.name)
        if st.source_kind == "git-commit" and st.label not in live
    ]
