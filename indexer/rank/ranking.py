"""Ranking that knows what code is: source first, one block per file, one hit per translated page.

Tests, snapshots, generated API reports, change files and changelogs (roles/paths.py reads a
path's role) match many queries by their
words (they repeat the names of what they test or describe) but are rarely the answer (and so are
config files the query does not name: signals.apply_config gives them the role "config"): they are
pushed down by a fixed number of places, not removed, so a query that only they answer still
finds them. Then hits are grouped so the top results are distinct files, and the translated copies
of one page (`i18n/zh-cn/...`) are listed under the best of them instead of taking a slot each.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.rank.candidates import Candidate
from monodex.indexer.roles.paths import SOURCE as SOURCE
from monodex.indexer.roles.paths import role_of as role_of
from monodex.indexer.store.base import Scored
from monodex.indexer.translations.copies import SOURCE_LOCALE, locale_of, same_page, translation_tail

# Places a secondary hit moves down: below a page of source results of similar rank. Places are
# result places (distinct files), not chunks: counted in chunks, a source file with many matching
# chunks above a test absorbed the demotion and the test kept its slot (issue 14, tune and test
# halves of bench/eval/ both gained: docs/benchmarks.md). The places counted include the demoted
# files themselves, so ten left four tests at the top of a change request back at places 7-10;
# twenty (issue 34): 14 monorepos' histories R@10 +0.005 on the tune halves (11 better, 1 worse)
# and +0.005 on the test halves, pull-request tune sets +0.008 a question (14 better, none worse);
# 15 and 30 read as 20. A question lists its tests, examples and benchmarks after every source
# file anyway (rank()), so the hand-written questions did not move.
DEMOTION = 20
# An example moves below the next source file only (a question moves it after every source file,
# rank()): a change request edits examples with the code they show (napi-rs's examples/napi/ is
# its test suite, farm's examples/ its fixtures). Pull-request tune halves at 3 / 2 / 1 / 0 places:
# nDCG@10 0.6497 / 0.6510 / 0.6538 / 0.6546, R@10 0.7697 / 0.7702 / 0.7721 / 0.7709 (1: 37 better,
# 9 worse; 0: farm -0.008 R@10); every question set equal to the last digit.
EXAMPLE_DEMOTION = 1


@dataclass
class Kept:
    """A hit kept: its candidate, its place in the order before grouping (1-based), its role and
    the translated copies of the same page folded into it."""

    candidate: Candidate
    position: int
    role: str
    also: list[str] = field(default_factory=list)

    @property
    def hit(self) -> Scored:
        return self.candidate.hit


# A question asking for tests, examples or benchmarks (query.py) keeps those in place.
_ASKED = {
    "test": "test",
    "snapshot": "test",
    "test-output": "test",
    "example": "example",
    "benchmark": "benchmark",
    "agent": "agent",
    "docs": "docs",
}


# Files that exercise code rather than configure it, and the pages that describe it (a question
# about code only: kinds.apply_docs gives them the role; of 214 Markdown pages in the first ten
# of our tune halves and second sets none was an answer, and five questions gained, none lost):
# a config file a question does not name can still be its answer ("which Node.js versions does
# the tooling require").
_EXERCISING = frozenset({"test", "snapshot", "test-output", "example", "benchmark", "docs", "tooling"})


def rank(
    hits: Sequence[Scored | Candidate],
    *,
    limit: int,
    per_file: int,
    include_tests: bool,
    asks: frozenset[str] = frozenset(),
    locale: str = SOURCE_LOCALE,
    asked: bool = False,
) -> list[Kept]:
    """The hits kept, best first: by score (after the signals), secondary roles moved down
    DEMOTION files (unless the query `asks` for them; after every source file when it is `asked`
    as a question, not a change), at most per_file hits a file,
    translated copies folded. A translated module's files take the place of the best of them, and
    the file in `locale` (the language the question names, else the source language) stands
    for them when it is a candidate: "the default English error messages" are `locales/en.ts`,
    whichever translation says "error" most."""
    cands = [h if isinstance(h, Candidate) else Candidate(h, h.score, None, None) for h in hits]
    keyed = []
    # The engine returns tied scores (frequent after RRF fusion) in no fixed order: the same search
    # must list them the same way every time.
    ordered = sorted(cands, key=lambda c: (-c.score, c.path, _ordinal(c.hit)))
    files: set[Any] = set()
    for position, c in enumerate(ordered, start=1):
        files.add(c.hit.payload.get("file_id"))
        place = len(files)  # files met so far: rises with position, so sources keep their order
        role = c.role or role_of(c.path, c.hit.payload.get("chunk_kind"))
        secondary = role != SOURCE and not c.defines_asked  # the one name asked, defined only there
        demoted = not include_tests and secondary and _ASKED.get(role) not in asks
        # a demoted hit goes after the hits of the DEMOTION-th file below it, not among them
        places = (EXAMPLE_DEMOTION if role == "example" else DEMOTION) if demoted else 0
        if demoted and asked and role in _EXERCISING:
            # A question asks where code is: of 975 secondary files that reached its first ten
            # (hand-written sets) one was an answer, and a weak source file beats them (hand-written
            # tune and test halves +0.003 nDCG@10, phrases +0.003/+0.004). A change request's
            # tests and configs are answers as often as weak sources (R@10 -0.04 if moved too).
            places = len(ordered)
        keyed.append((place + places, demoted, position, c, role))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    # each locale folder's file in `locale`, the best of its chunks (keyed is best first)
    stands: dict[str, tuple[int, Candidate, str]] = {}
    for _, _, position, c, role in keyed:
        if (lang := locale_of(c.path)) is not None and lang[1] == locale and lang[0] not in stands:
            stands[lang[0]] = (position, c, role)
    kept: list[Kept] = []
    # the kept hits a copy can be of: two paths neither of which is a translation or a locale
    # file are never copies, so a plain path is compared with these alone (a search ranks every
    # candidate file when it has history: comparing each with every kept one cost 2.5 ms)
    copied: list[Kept] = []
    per: dict[Any, int] = {}
    taken: set[str] = set()  # hit ids kept: a stand-in is met again at its own place
    for _, _, position, c, role in keyed:
        met = c
        if (lang := locale_of(c.path)) is not None and lang[0] in stands:
            position, c, role = stands.pop(lang[0])  # the first of its folder met: its stand-in
            if c is not met and met.score > c.score:  # its place, and the score that earned it
                c.add("stand-in", met.score - c.score, f"stands for {met.path}, the best of its folder")
        fid = c.hit.payload.get("file_id")
        if per.get(fid, 0) >= per_file or c.hit.id in taken:
            continue
        # a copy is another file: a kept file's next chunk is its own (per_file allows it)
        special = _may_be_copy(c.path)
        copy_of = next(
            (
                k
                for k in (kept if special else copied)
                if k.candidate.path != c.path and same_page(k.candidate.path, c.path)
            ),
            None,
        )
        if copy_of is not None:
            if c.path not in copy_of.also:
                copy_of.also.append(c.path)
            continue
        per[fid] = per.get(fid, 0) + 1
        taken.add(c.hit.id)
        kept.append(Kept(c, position, role, [met.path] if met.path != c.path else []))
        if special:
            copied.append(kept[-1])
        if len(kept) == limit:
            break
    return kept


def _may_be_copy(path: str) -> bool:
    """Whether `path` is a translated page or a locale file: same_page is False for any two
    paths of which neither is."""
    return translation_tail(path) is not None or locale_of(path) is not None


def _ordinal(hit: Scored) -> int:
    value = hit.payload.get("chunk_ordinal")
    return value if isinstance(value, int) else 0
