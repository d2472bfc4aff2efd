"""Writing the index: a crawl someone asked for, and a refresh a hook (or the runner) queued."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from monodex import names
from monodex.requests.fields import SPOOL_SCHEMA, Asks, FieldError, absolute_path, check_names
from monodex.schema.crawl import CrawlAnswer


@dataclass(frozen=True)
class CrawlRequest(Asks[CrawlAnswer]):
    """Index a commit (or the working tree): the crawl creates the label, so its name is checked
    here whoever asks (a label outside the grammar could never be named to remove it)."""

    OP: ClassVar[str] = "crawl"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str
    commit: str | None = None
    working_dir: bool = False
    full: bool = False
    # Phase two (dense vectors) in the same request: None chooses by where it runs, i.e. in this
    # process when no runner is up (nobody else would), left to the runner's fill job otherwise.
    wait_dense: bool | None = None
    # The checkout to read (absolute top folder of a linked or the main worktree): its HEAD for
    # --commit HEAD, its files for --working-dir. None: the catalog's registered path.
    worktree: str | None = None
    # Run here (no runner): end by compacting the index when it helps (upkeep/compaction.py).
    compact: bool = True

    def __post_init__(self) -> None:
        check_names(self.catalog, self.label)
        absolute_path("worktree", self.worktree)
        if self.working_dir and self.commit is not None:  # neither: HEAD
            raise FieldError(
                "commit", "{name} and the working dir exclude each other", advice="drop one of them"
            )


@dataclass(frozen=True)
class RefreshRequest:
    """Bring a label to a commit: what a hook (or `--fresh`, or the runner itself) queues in the
    spool. A spool entry is read back through `build`, like a socket call, so a wrong-typed entry
    is set aside when claimed, never breaking sorting or a refresh later (issue 12)."""

    OP: ClassVar[str] = "refresh"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str
    repo: str
    ref: str  # refs/heads/main
    commit: str
    hook: str  # post-commit | post-checkout | post-merge | post-rewrite | cli
    created_at: float
    attempts: int = 0
    not_before: float = 0.0
    last_error: str = ""
    schema: int = SPOOL_SCHEMA
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_names(self.catalog, self.label)
        if self.attempts < 0:
            raise FieldError("attempts", "{name}: must not be negative, got {value}", value=self.attempts)

    @property
    def key(self) -> str:
        return names.label_id(self.catalog, self.label)
