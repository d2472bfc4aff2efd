"""The labels and worktree overlays the index holds, with what each covers (`monodex labels`,
`status`)."""

from __future__ import annotations

from monodex.indexer.points import labelmeta, overlaymeta
from monodex.indexer.read.search import coverage
from monodex.indexer.store.base import Store

from monodex.schema.labels import LabelRow, Membership, OverlayRow
from monodex.schema.payload import Key


def labels(store: Store, catalog: str | None = None) -> list[LabelRow]:
    if store.info() is None:
        return []
    rows: list[LabelRow] = []
    for s in labelmeta.list_all(store, catalog):
        covered, waiting, count = coverage(store, s.label_id)
        row = LabelRow(
            catalog=s.catalog,
            label=s.label,
            commit_oid=s.commit_oid,
            target_commit_oid=labelmeta.target_commit(s),
            source_kind=s.source_kind,
            crawl_complete=s.crawl_complete,
            updated_at_unix_secs=s.updated_at_unix_secs,
            chunks=count,
            dense_pending=waiting,
            dense_coverage=covered,
        )
        if base := s.extra.get(Key.MEMBERSHIP_BASE):  # what the label stands on (points/membership.py)
            row["membership"] = Membership(
                base=base,
                base_commit_oid=s.extra.get(Key.MEMBERSHIP_BASE_COMMIT),
                changed_paths=s.extra.get(Key.MEMBERSHIP_CHANGED, 0),
            )
        if branch := s.extra.get(Key.BRANCH):  # the branch it was last refreshed from
            row["branch"] = branch
        if gone := labelmeta.branch_deleted_at(s):  # upkeep/branches.py: removed after a grace period
            row[Key.BRANCH_DELETED_AT] = gone
        rows.append(row)
    return rows


def overlays(store: Store, catalog: str | None = None) -> list[OverlayRow]:
    """Worktree overlays (never labels: `labels` lists them apart, under `overlays`)."""
    rows: list[OverlayRow] = []
    for o in overlaymeta.list_all(store, catalog):
        covered, waiting, count = coverage(store, o.current) if o.current else (1.0, 0, 0)
        rows.append(
            OverlayRow(
                catalog=o.catalog,
                label=o.label,
                worktree=o.worktree,
                branch=o.branch,
                files=len(o.file_ids),
                paths=len(o.dirty),
                chunks=count,
                dense_pending=waiting,
                updated_at_unix_secs=o.updated_at_unix_secs,
            )
        )
    return rows
