"""Every read of label membership, in one place: which labels hold a chunk, and the conditions
that select the chunks of a label, of any of several labels, or of one label and not another.

Today a chunk's payload lists the labels holding it (`active_label_ids`, DESIGN.md "Storage").
How membership is stored may change for many-branch scale (a base plus a delta, or membership
apart from the payload): the readers above call these functions, never the payload key, so such
a change swaps this module (and write/membership.py, which writes it)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from monodex.indexer.store.base import Condition, IsEmpty, Match, MatchAny

KEY = "active_label_ids"
# payload_keys for a scroll that reads membership (see labels_of)
KEYS: tuple[str, ...] = (KEY,)


def labels_of(payload: Mapping[str, Any]) -> list[str]:
    """The label ids holding this chunk (its payload read with KEYS among the payload keys)."""
    return [str(x) for x in payload.get(KEY) or ()]


def held_by(label_id: str) -> Condition:
    """A chunk of this label."""
    return Match(KEY, label_id)


def held_by_any(label_ids: Iterable[str]) -> Condition:
    """A chunk of at least one of these labels."""
    ids = tuple(label_ids)
    return Match(KEY, ids[0]) if len(ids) == 1 else MatchAny(KEY, ids)


def held_by_none() -> Condition:
    """A chunk no label holds (orphans)."""
    return IsEmpty(KEY)
