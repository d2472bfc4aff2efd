"""Label metadata points: what each label holds, read, written and listed (DESIGN.md "Storage")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from monodex.indexer.points import filters
from monodex.indexer.points.filters import LABEL_METADATA as LABEL_METADATA
from monodex.indexer.points.identity import label_point_id
from monodex.indexer.store.base import Point, Store

from monodex import names
from monodex.errors import MonodexError, UsageError
from monodex.schema.payload import Key

# Facts of note (schema/payload.py): `commit_is_target` says commit_oid is the commit of an
# unfinished first crawl, not one the label held; `branch` is the branch the label was last seen
# tracking (set after a refresh from a branch and by the runner's ref poll: only such a label can
# lose its branch, a label crawled from a tag or a commit never had one); `branch_deleted_at` the
# unix seconds the runner first saw that branch gone (0, or absent, while it exists).


@dataclass(frozen=True)
class LabelState:
    catalog: str
    label: str
    label_id: str
    # The commit the label fully reflects when crawl_complete; while a crawl is unfinished, the
    # last one it fully reflected, or (commit_is_target) the commit of its unfinished first crawl.
    commit_oid: str
    source_kind: str  # git-commit | working-directory
    crawl_complete: bool
    updated_at_unix_secs: int
    extra: dict[str, Any]

    @classmethod
    def from_payload(cls, p: dict[str, Any]) -> LabelState:
        known = {
            "catalog",
            "label",
            Key.LABEL_ID,
            Key.COMMIT_OID,
            Key.SOURCE_KIND,
            Key.CRAWL_COMPLETE,
            Key.UPDATED_AT,
            Key.SOURCE_TYPE,
        }
        return cls(
            catalog=str(p.get(Key.CATALOG, "")),
            label=str(p.get(Key.LABEL, "")),
            label_id=str(p.get(Key.LABEL_ID, "")),
            commit_oid=str(p.get(Key.COMMIT_OID, "")),
            source_kind=str(p.get(Key.SOURCE_KIND, "")),
            crawl_complete=bool(p.get(Key.CRAWL_COMPLETE, False)),
            updated_at_unix_secs=int(p.get(Key.UPDATED_AT, 0)),
            extra={k: v for k, v in p.items() if k not in known},
        )


def commit_is_target(state: LabelState) -> bool:
    return bool(state.extra.get(Key.COMMIT_IS_TARGET))


def target_commit(state: LabelState) -> str:
    """The commit the label is (complete) or is being brought to (an unfinished crawl)."""
    if state.crawl_complete:
        return state.commit_oid
    return str(state.extra.get(Key.TARGET_COMMIT_OID) or state.commit_oid)


def branch_deleted_at(state: LabelState) -> int:
    """When the label's branch was first seen gone (unix seconds), 0 while it exists."""
    value = state.extra.get(Key.BRANCH_DELETED_AT)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def remember_branch(store: Store, label_id: str, branch: str) -> None:
    """The label tracks `branch`, which exists (clears a deleted mark)."""
    store.set_payload([label_point_id(label_id)], {Key.BRANCH: branch, Key.BRANCH_DELETED_AT: 0})


def mark_branch_deleted(store: Store, label_id: str, now: float) -> None:
    store.set_payload([label_point_id(label_id)], {Key.BRANCH_DELETED_AT: int(now)})


def require_label(store: Store, catalog: str, label: str) -> LabelState:
    """The label's metadata, or an error that says what to run."""
    crawl = f"monodex crawl --catalog {catalog} --label {label} --commit HEAD"
    state = read(store, names.label_id(catalog, label))
    if state is None and store.info() is None:  # asked only then: Edge counts every point for it
        raise MonodexError("the index is empty", f"index something first: '{crawl}'")
    if state is None:
        raise UsageError(
            f"label {label!r} of catalog {catalog!r} is not indexed",
            f"see 'monodex labels' for what is indexed, or run '{crawl}'",
        )
    return state


def read(store: Store, label_id: str) -> LabelState | None:
    found = store.retrieve([label_point_id(label_id)])
    return LabelState.from_payload(found[0].payload) if found else None


def write(
    store: Store,
    *,
    catalog: str,
    label: str,
    dim: int,
    commit_oid: str,
    source_kind: str,
    complete: bool,
    now: float,
    extra: dict[str, Any] | None = None,
) -> None:
    lid = names.label_id(catalog, label)
    payload: dict[str, Any] = {
        Key.SOURCE_TYPE: LABEL_METADATA,
        Key.CATALOG: catalog,
        Key.LABEL_ID: lid,
        Key.LABEL: label,
        Key.COMMIT_OID: commit_oid,
        Key.SOURCE_KIND: source_kind,
        Key.CRAWL_COMPLETE: complete,
        Key.UPDATED_AT: int(now),
        **(extra or {}),
    }
    # A zero dense vector and no sparse one: metadata must never rank as content.
    store.upsert([Point(id=label_point_id(lid), payload=payload, dense=[0.0] * dim)])


def list_all(store: Store, catalog: str | None = None) -> list[LabelState]:
    states = [LabelState.from_payload(r.payload) for r in store.scroll(filters.label_metadata(catalog))]
    return sorted(states, key=lambda s: (s.catalog, s.label))


def delete(store: Store, label_id: str) -> None:
    store.delete([label_point_id(label_id)])
