"""Pages most changes edit (issue 34): a changelog each change adds its line to (jsoup's
CHANGES.md: 58% of its latest 200 changes), a README that documents every option (ky's: 46%).
A prose page goes down for a question about code (kinds.apply_docs), yet such a page is part of
the answer to a change request: the change will edit it too. The history's newest changes
(history/cochanges.py's window, routine commits left out) say which pages those are; a page
that PAGE_SHARE of them edited is marked on its candidates with its share.

Only prose pages that are source by their path: a CHANGELOG.md is a secondary file by its name
(ranking.role_of), listed after the code whatever the history says.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from monodex.indexer.rank.candidates import Candidate
from monodex.indexer.rank.kinds import is_prose
from monodex.indexer.rank.ranking import SOURCE, role_of

from monodex.schema.payload import Key

# A page edited by a fifth of the changes (measured on 51 repositories' own histories, tune
# halves: jsoup 58%, flask 28%, ky 46% among those questions ask for; a README every tenth change
# touches is a page, not part of every change)
PAGE_SHARE = 0.2
MIN_CHANGES = 30  # fewer changes say no rate: a young repository's first commits all touch its README


@runtime_checkable
class LatestChanges(Protocol):
    def latest_changes(self) -> Sequence[tuple[str, ...]]: ...


def mark(cands: list[Candidate], history: object) -> None:
    """Each candidate of a page PAGE_SHARE of the latest changes edited gets that share
    (`Candidate.edited`); nothing without a history that keeps its latest changes."""
    if not isinstance(history, LatestChanges):
        return
    pages = {
        c.path
        for c in cands
        if is_prose(c.path, c.hit.payload.get(Key.LANG))
        and role_of(c.path, c.hit.payload.get(Key.CHUNK_KIND)) == SOURCE
    }
    if not pages:
        return
    rows = history.latest_changes()
    if len(rows) < MIN_CHANGES:
        return
    edits = Counter(f for row in rows for f in row if f in pages)
    for c in cands:
        share = edits[c.path] / len(rows)
        if share >= PAGE_SHARE:
            c.edited = share
