"""Ranking that knows what code is: source first, one block per file.

Tests, snapshots, generated API reports, change files and changelogs match many queries by their
words (they repeat the names of what they test or describe) but are rarely the answer: they are
pushed down by a fixed number of places, not removed, so a query that only they answer still
finds them. Then hits are grouped so the top results are distinct files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from monodex.indexer.store.base import Scored

SOURCE = "source"
# Places a secondary hit moves down: below a page of source results of similar rank.
DEMOTION = 10

_ROLES = (
    ("snapshot", re.compile(r"(^|/)__snapshots__/|\.snap$")),
    (
        "test",  # build-tests/: the test projects of Rush repositories
        re.compile(
            r"(^|/)(__tests__|__mocks__|tests?|test-data|fixtures?|build-tests(-samples)?)/"
            r"|\.(test|spec)\.[cm]?[jt]sx?$"
        ),
    ),
    ("api-report", re.compile(r"(^|/)common/reviews/api/|\.api\.md$")),
    ("change-file", re.compile(r"(^|/)common/changes/")),
    ("changelog", re.compile(r"(^|/)CHANGELOG\.(md|json)$", re.IGNORECASE)),
)


def role_of(relative_path: str, chunk_kind: str | None = None) -> str:
    """source, or the kind of secondary file: test, snapshot, api-report, change-file, changelog."""
    for role, pattern in _ROLES:
        if pattern.search(relative_path):
            return role
    return "changelog" if chunk_kind == "changelog" else SOURCE


def rank(
    hits: Sequence[Scored], *, limit: int, per_file: int, include_tests: bool
) -> list[tuple[Scored, int, str]]:
    """(hit, fused rank 1-based, role) for the hits kept, best first."""
    keyed = []
    # The engine returns tied scores (frequent after RRF fusion) in no fixed order: the same search
    # must list them the same way every time.
    ordered = sorted(hits, key=lambda h: (-h.score, str(h.payload.get("relative_path", "")), _ordinal(h)))
    for position, hit in enumerate(ordered, start=1):
        role = role_of(str(hit.payload.get("relative_path", "")), hit.payload.get("chunk_kind"))
        penalty = 0 if include_tests or role == SOURCE else DEMOTION
        keyed.append((position + penalty, position, hit, role))
    keyed.sort(key=lambda k: (k[0], k[1]))
    kept: list[tuple[Scored, int, str]] = []
    per: dict[Any, int] = {}
    for _, position, hit, role in keyed:
        fid = hit.payload.get("file_id")
        if per.get(fid, 0) >= per_file:
            continue
        per[fid] = per.get(fid, 0) + 1
        kept.append((hit, position, role))
        if len(kept) == limit:
            break
    return kept


def _ordinal(hit: Scored) -> int:
    value = hit.payload.get("chunk_ordinal")
    return value if isinstance(value, int) else 0
