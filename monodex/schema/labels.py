"""Answers about what the index holds and its upkeep: the labels listed, one removed, a catalog
purged, garbage collected, the collections of old models, and each label verified against git."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict


class Membership(TypedDict):
    """What a label stands on (points/membership.py): a base and its own changed paths."""

    base: str
    base_commit_oid: str | None
    changed_paths: int


class LabelRow(TypedDict):
    catalog: str
    label: str
    commit_oid: str
    target_commit_oid: NotRequired[str]
    source_kind: str
    crawl_complete: bool
    updated_at_unix_secs: int
    chunks: int
    dense_pending: Annotated[int, "chunks still waiting for their dense vector"]
    dense_coverage: Annotated[float, "share of the chunks with a dense vector"]
    membership: NotRequired[Membership]
    branch: NotRequired[str | None]  # the branch it was last refreshed from
    branch_deleted_at: NotRequired[int]


class OverlayRow(TypedDict):
    """A worktree's overlay (never a label: listed apart)."""

    catalog: str
    label: str
    worktree: str
    branch: str | None
    files: int
    paths: int
    chunks: int
    dense_pending: int
    updated_at_unix_secs: int


class LabelsAnswer(TypedDict):
    labels: list[LabelRow]
    overlays: list[OverlayRow]


class RemovedLabel(TypedDict):
    catalog: str
    label: str
    files: int
    chunks_unlabelled: int
    chunks_deleted: int
    chunks_kept: int


class PurgedCatalog(TypedDict):
    catalog: str
    labels_removed: list[str]
    chunks_deleted: int


class GcAnswer(TypedDict):
    catalog: str
    dry_run: bool
    deleted_chunks: int
    unlabeled_chunks: int
    incomplete_files: int
    incomplete_chunks: int
    text_bytes: int
    skipped_incomplete_because_crawl_in_progress: bool
    keys_stripped: int
    delta_points_dropped: int
    overlays_dropped: dict[str, str]
    compacted: NotRequired[bool | None]
    compact_seconds: NotRequired[float]


class NightlyGc(TypedDict):
    catalogs: dict[str, GcAnswer]
    optimize_seconds: float


class OldCollection(TypedDict):
    collection: str
    embedder_id: str
    bytes: int
    labels: list[str]
    answering: list[str]


class OldModelsAnswer(TypedDict):
    dry_run: bool
    collections: list[OldCollection]
    collection: str | None


class Verified(TypedDict):
    """One label checked against git (upkeep/verify.py): `ok` null when it cannot be checked."""

    catalog: str
    label: str
    ok: bool | None
    drift: dict[str, int]
    dense_pending: NotRequired[int]
    branch_commit: NotRequired[str]
    skipped: NotRequired[str]
    problem: NotRequired[str]
    hint: NotRequired[str]
    repaired: NotRequired[bool]
    ok_after_repair: NotRequired[bool | None]


class VerifyAnswer(TypedDict):
    labels: list[Verified]
    pruned: NotRequired[list[str]]  # the runner's nightly run: labels whose branch is gone
    failed: NotRequired[int]
