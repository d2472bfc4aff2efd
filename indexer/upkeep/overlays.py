"""Overlays nobody can search any more (DESIGN.md "overlay"): their worktree is gone (`git
worktree remove`, `prune`, a deleted folder), checks out another branch than the label the
overlay lies over, or that label was removed (`labels rm`). GC drops them, so the chunks only
they held are collected."""

from __future__ import annotations

from pathlib import Path

from monodex.indexer.overlay.update import drop
from monodex.indexer.points import labelmeta, overlaymeta
from monodex.indexer.points.overlaymeta import OverlayState
from monodex.indexer.store.base import Store

from monodex import names
from monodex.errors import UsageError
from monodex.git import files
from monodex.labels import branchlabels
from monodex.observe import logs

# An overlay update announced this recently may still be storing its files (crawl's own grace).
IN_PROGRESS_GRACE_SECONDS = 3600


def stale_reason(store: Store, state: OverlayState) -> str | None:
    """Why the overlay is of no use any more, or None while its worktree still searches it."""
    root = Path(state.worktree)
    if not (root / ".git").exists() or files.common_dir(root) is None:
        return "worktree gone"
    if labelmeta.read(store, names.label_id(state.catalog, state.label)) is None:
        return "label removed"
    branch = files.head_branch(root)
    try:
        label = branchlabels.of_repo(state.catalog, root).label(branch) if branch else None
    except UsageError:
        label = None
    return None if label == state.label else "branch changed"


def prune(store: Store, catalog: str, *, dry_run: bool) -> dict[str, str]:
    """{worktree: reason} of the catalog's overlays dropped (or, dry run, to drop)."""
    dropped = {}
    for state in overlaymeta.list_all(store, catalog):
        reason = stale_reason(store, state)
        if reason is None:
            continue
        dropped[state.worktree] = reason
        if not dry_run:
            chunks = drop(store, state)
            logs.get("monodex.overlay").info(
                "overlay.dropped", worktree=state.worktree, why=reason, chunks=chunks
            )
    return dropped


def updating(store: Store, catalog: str, now: float) -> bool:
    """An overlay of the catalog is being updated (its files may be half stored)."""
    return any(
        st.pending and now - st.updated_at_unix_secs < IN_PROGRESS_GRACE_SECONDS
        for st in overlaymeta.list_all(store, catalog)
    )
