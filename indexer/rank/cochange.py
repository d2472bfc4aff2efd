"""The last ranking signal: files that have changed together with the top results (issue 14).

A change request touches several files, and the query's words reach only some of them: the top
hits are the files it names, the others sit lower. Below the first KEEP places, each source hit
gains `weight` x how often it changed together with the first ANCHORS hits (commits touching
both / commits touching the anchor, + 2 so that a pair seen once or twice counts little), on its
score relative to the first hit's. Only hits the search found move, and only among source
places: the first KEEP places, tests and other secondary files keep theirs. A lifted hit's score
says how far its evidence lifted it, below the KEEP-th place's (`_held`): never a tie at that cap,
where every lifted hit once read the same score (places 5-10 all 0.070 on vuejs/core). The counts come from
the catalog's git history (history/cochanges.py, kept current by history/catchup.py); without one
the order is unchanged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Protocol

from monodex.indexer.rank.ranking import SOURCE, Kept

KEEP = 5  # places the history never moves: what the query itself ranks first stays first
ANCHORS = 3  # the top hits the others are compared with
SMOOTHING = 2  # added to an anchor's commit count


class CoChanges(Protocol):
    def counts(
        self, files: Sequence[str], anchors: Sequence[str]
    ) -> tuple[dict[str, int], dict[tuple[str, str], int]]: ...


def reorder(kept: list[Kept], history: CoChanges | None, weight: float) -> list[Kept]:
    """`kept` with its source hits below KEEP re-ordered by score and history together."""
    if history is None or weight == 0 or len(kept) <= KEEP:
        return kept
    anchors = list(dict.fromkeys(k.candidate.path for k in kept[:ANCHORS]))
    movable = [k for k in kept[KEEP:] if k.role == SOURCE]
    if not movable:
        return kept
    single, pair = history.counts(sorted({k.candidate.path for k in movable} - set(anchors)), anchors)
    if not pair:
        return kept
    top = kept[0].candidate.score or 1.0
    ceiling = kept[KEEP - 1].candidate.score
    knee = min(max(k.candidate.score for k in movable), ceiling)  # the best a movable hit had
    keyed = []
    for k in movable:
        together, best = 0.0, None
        for g in anchors:
            f = k.candidate.path
            n = pair.get((f, g) if f < g else (g, f), 0) if f != g and _prose(f) == _prose(g) else 0
            if n:
                share = n / (single.get(g, n) + SMOOTHING)
                together += share
                if best is None or share > best[0]:
                    best = (share, g, n, single.get(g, n))
        key = k.candidate.score / top + weight * together
        keyed.append((key, k))
        if best is not None:
            _, g, n, of = best
            new = _held(key * top, knee, ceiling)
            k.candidate.moved.append(
                {
                    "signal": "history",
                    "change": round(new - k.candidate.score, 6),
                    "why": f"changed together with {g} in {n} of its {of} commits",
                }
            )
            k.candidate.score = new
    order = iter(k for _, k in sorted(keyed, key=lambda t: -t[0]))  # stable: ties keep their order
    head = kept[:KEEP]
    return head + [next(order) if k.role == SOURCE else k for k in kept[KEEP:]]


_PROSE = re.compile(r"\.(md|mdx|markdown|txt|rst|adoc)$|(^|/)[^/.]+$", re.IGNORECASE)


def _prose(path: str) -> bool:
    """Pages and plain text (README.md, news.md, LICENSE) against code. Release, licence and
    formatting commits touch both kinds at once; a change request's files are one kind, so
    history lifts a hit only by anchors of its kind (vuejs/core, issue 22: a news page from
    lexical rank 47 and a licence paragraph were lifted into places 6-10 by code anchors)."""
    return bool(_PROSE.search(path))


def _held(score: float, knee: float, ceiling: float) -> float:
    """A lifted score under the KEEP-th place's: as it is up to the best score a movable hit had,
    then squeezed toward the ceiling, strictly increasing, so more evidence reads higher."""
    span = ceiling - knee
    if score <= knee or span <= 0:
        return min(score, ceiling)
    return knee + span * (1 - math.exp(-(score - knee) / span))
