"""`monodex status`'s answer (front/status.py): the runner, the refresh in progress, the spool,
the jobs' last outcomes, each label's freshness and every checkout of every catalog."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from monodex.schema.crawl import InProgress
from monodex.schema.labels import LabelRow


class Runner(TypedDict):
    running: bool
    pid: int | None
    uptime_seconds: float | None
    socket: str | None


class Refreshing(InProgress, total=False):
    state: str  # running | interrupted (its runner is gone)


class Failing(TypedDict):
    label: str
    attempts: int
    error: str


class RunningCrawl(TypedDict, total=False):
    """A crawl running now (the runner's or a `monodex crawl`'s), as it reports itself in its file
    (monodex/observe/crawlstate.py, written by write/memory.py's MemoryWatch); rss_mb is read by status."""

    catalog: str
    label: str
    phase: str  # plan | index | dense
    files_done: int
    files_total: int
    chunks: int
    pid: int
    worker_pids: list[int]
    rss_mb: int  # the crawl's process and its workers, now
    peak_rss_mb: int
    max_memory_mb: float  # crawl.max_memory_mb
    rolls: int
    started_at: float
    updated_at: float


class SetAside(TypedDict):
    name: str
    reason: str


class SpoolState(TypedDict):
    pending: int
    claimed: int
    failed: int
    oldest_age_seconds: float | None
    errors: list[Failing]
    unreadable: list[SetAside]
    quarantined: int
    quarantine: list[SetAside]
    quarantine_dir: str
    quarantine_hint: str


class Problem(TypedDict):
    folder: str
    problem: str
    hint: str


class GoneSince(TypedDict):
    since: int
    removed_after: float


class Dense(TypedDict):
    """Phase two of one label: its coverage, chunks to go and, while the runner fills, an ETA."""

    coverage: float
    pending: int
    eta_seconds: float | None
    state: NotRequired[str]  # complete | filling | queued | waiting for the runner


class StatusLabel(LabelRow):
    """A row of the labels answer with its freshness against its branch."""

    freshness: NotRequired[str]  # fresh | stale | unknown | branch gone | commit (detached HEAD)
    branch_commit: NotRequired[str | None]
    problem: NotRequired[str]
    hint: NotRequired[str]
    branch_gone: NotRequired[GoneSince]
    refreshing: NotRequired[bool]
    dense: NotRequired[Dense]


class Unread(TypedDict):
    error: str  # the index could not be read (a full disk, busy): why
    refreshing: NotRequired[bool]


class Checkout(TypedDict):
    catalog: str
    path: str
    branch: str | None
    head: str | None
    label: str | None
    freshness: str
    here: bool


class Job(TypedDict):
    ok: bool
    outcome: str  # ok | failed | interrupted
    started_at: float
    finished_at: float
    result: dict[str, Any]  # the job's own answer (crawl.DrainAnswer, labels.NightlyGc, ...)


class StatusAnswer(TypedDict):
    runner: Runner
    refresh: Refreshing | None
    crawls: list[RunningCrawl]  # running now, oldest first
    spool: SpoolState
    problems: list[Problem]
    labels: list[StatusLabel | Unread]
    worktrees: list[Checkout]
    jobs: dict[str, Job]
