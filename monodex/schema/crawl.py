"""Answers about writing the index: a crawl (and its dry run), phase two's vectors, a compaction,
and the runner's refreshes of labels (what the spool asked, what its ref poll found)."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Filled(TypedDict):
    """One run of phase two (write/fill.py) for a label."""

    label_id: str
    pending_before: int
    filled: int
    embedded: int
    reused: int
    pending_after: int
    seconds: float
    stopped: bool


class Compacted(TypedDict):
    """The compaction a crawl without a runner starts (upkeep/compaction.later): its process, or
    why none was started."""

    written: int
    points: int
    pid: NotRequired[int]  # compacting in another process: nothing waits for it
    skipped: NotRequired[str]  # no room for a copy and its compaction: why


class CrawlAnswer(TypedDict):
    catalog: str
    label: str
    commit: str
    mode: str  # full | incremental | derived
    files_total: int
    files_unchanged: int
    files_reused: int
    files_embedded: int
    files_removed: int
    chunks_embedded: int
    chunks_reused: int
    chunks_pending: int
    seconds: float
    searchable_seconds: float
    skipped: dict[str, int]
    dense: NotRequired[Filled]
    compacted: NotRequired[Compacted]  # only when skipped: not compacted, and why
    compaction: NotRequired[Compacted]  # started in another process (its pid)


class PlannedFile(TypedDict):
    path: str
    strategy: str
    chunks: int
    # a `script`: the strategy its `#!` line chose (`python`); a `header`: `c` or `cpp`
    chunked_as: NotRequired[str]


class SkippedFile(TypedDict):
    path: str
    reason: str


class PolicyUsed(TypedDict):
    source: str  # the policy file a crawl reads, or "built-in"
    roots: list[str]  # the folders it is limited to; [] for the whole repository


class DryRunAnswer(TypedDict):
    files_to_index: int
    chunks: int
    by_strategy: dict[str, int]
    skipped: dict[str, int]
    files: list[PlannedFile]
    skipped_files: list[SkippedFile]
    policy: PolicyUsed
    unregistered: NotRequired[str]  # a dry run standing in a repository nobody registered yet


class NotRefreshed(TypedDict):
    catalog: str
    label: str
    not_refreshed: str  # why the request was dropped


RefreshAnswer = CrawlAnswer | NotRefreshed


class Failed(TypedDict):
    label: str
    error: str
    attempts: int


class InProgress(TypedDict, total=False):
    """The refresh a stop cut short (scheduler/state.py's record, or the request's)."""

    label: str
    commit: str
    files_done: int
    files_total: int | None
    chunks_embedded: int
    started_at: float
    updated_at: float
    pid: int


class DrainAnswer(TypedDict):
    refreshed: int
    failed: int
    labels: list[str]
    errors: list[Failed]
    interrupted: InProgress | None


class PollAnswer(TypedDict):
    """The runner's ref poll (upkeep/branches.py)."""

    queued: list[str]
    created: list[str]
    marked: list[str]
    unmarked: list[str]
    removed: list[str]
    problems: list[str]
