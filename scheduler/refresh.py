"""The runner's jobs' work, by the names its jobs and tests use: each goes through the indexer's
one door, indexer/ops.py (the scheduler imports nothing else of the indexer but the Session)."""

from __future__ import annotations

from monodex.indexer.ops import (
    collect_all as collect_garbage,
)
from monodex.indexer.ops import (
    fill_round,
    labels_waiting,
    poll_branches,
    queue_model_change,
    queue_uncounted_history,
)
from monodex.indexer.ops import (
    refresh as refresh_label,
)
from monodex.indexer.ops import (
    verify_all as verify_labels,
)

__all__ = [
    "collect_garbage",
    "fill_round",
    "labels_waiting",
    "poll_branches",
    "queue_model_change",
    "queue_uncounted_history",
    "refresh_label",
    "verify_labels",
]
