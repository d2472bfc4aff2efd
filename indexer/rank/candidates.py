"""A hit on its way through the ranking: its fused score, the signals' weights, and the fusion
of the dense and lexical lists (issue 14). The signals (kinds.py, named.py, signals.py) move a
Candidate's score and say why, so `--explain` can show it."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.store.base import Scored


@dataclass(frozen=True)
class Weights:
    """Multipliers apply to the fused score (a hit's RRF score, 0-0.4 with k 5 and two lists);
    `file_evidence` scales the other matching chunks of a hit's file added to its score."""

    # Set by hand on the tune half of bench/eval/ (sparo and rushstack, bench/rank_eval.py),
    # round values on a plateau; docs/benchmarks.md has what each did on tune and on test.
    docs: float = 0.5  # a prose page (Markdown, text) that is not code: x this
    # ... when the query is a question about the code (query.Query.question): 0.3 left a page
    # both lists rank first (fused 0.4) above code one list ranks 5th (1/9; issue 34: 0.1 gains
    # 0.007 nDCG@10 on the hand-written tune half, plateau 0.05-0.1, no answer there a page)
    docs_question: float = 0.1
    config: float = 0.5  # a config file (JSON, YAML, TOML; not a manifest) the query does not name: x this
    config_down: bool = True  # and moved down as tests are (ranking.DEMOTION places)
    # ... unless a change request's past words list it at this share of the list's first or more:
    # commits in the request's words changed that config file (tauri's `.changes/config.json`; issue
    # 34, plateau 0.01-0.5 on the tune halves; figures in docs/benchmarks.md)
    config_past: float = 0.5
    # under an older version's folder (src/v3/ beside src/v4/): x this (0.5 left zod's long v3
    # types.ts above the v4 files it outscored twice: zod tune and test +4 questions each, none worse)
    older: float = 0.3
    site: float = 0.5  # a documentation site's code (website/, docusaurus config, sidebars) not named: x this
    tooling: float = 0.5  # a question's hit in the repository's tooling (root scripts/, tools/): x this
    tooling_down: bool = True  # ... and, asked as a question, listed after the source files
    definition: float = 1.5  # the chunk or file that defines an identifier the query names: x this
    package: float = 1.3  # a file of a package or project the query names: x this
    file_evidence: float = 0.2  # + this x the sum of the file's next best chunk scores
    file_chunks: float = 2  # how many more chunks of a file count as its evidence
    tested: float = 0.25  # + this x the best score of the file's own test among the candidates
    history: float = 1.0  # + this x how often a lower hit changed with the top ones (cochange.py)
    # the files past commits with the query's words touched, a third fused list (pastwords.py):
    # this / (k + the file's place); 0.35 and 0.5 lead base on the tune halves, 0.35 keeps tauri's R@10
    past_words: float = 0.35
    # ... for a change request (not a question, not one name): this x the file's score relative to
    # the list's first (commit subjects are change requests: the list is surer, and by how much it
    # says; tune halves: tauri 0.751 -> 0.795 R@10, napi-rs 0.742 -> 0.779 MRR, plateau 0.13-0.16)
    past_words_request: float = 0.15
    # issue 34: evidence relative to the best candidate's score (the fused scale varies by query)
    symbol: float = 1.0  # one-name query: the chunk defining it + this x the best score
    pipeline: float = 0.3  # a question about CI: each CI pipeline + this x the best
    name_coverage: float = 0.2  # + this x the best x the share of the file name's words the question says
    name_min: float = 0.5  # ... counted from this share on
    name_rare: bool = True  # ... each word as 1 / the candidate files whose names have it
    dependency: float = 1.0  # a dependency update: each manifest chunk declaring it + this x the best
    path: float = 1.0  # a query that is a path: the files at it (or under the folder) + this x the best
    # a short question ("how are cookies signed"): a hit only the lexical list found x this. Its
    # few words match everywhere, and a chunk the model ranks nowhere near it is seldom about it
    # (short hand-written questions: 12 repositories, bench/eval/short/; docs/benchmarks.md)
    lexical_only: float = 0.5
    short_terms: int = 6  # ... a question of at most this many words the lexical list matches
    # ... and for it, file evidence and file-name coverage (above) x these: a file whose several
    # chunks match is its subject; one common word in a file's name ("requests": `request.js`) is
    # not (short questions: 8 repositories 0.790 -> 0.813, 4 held out 0.873 -> 0.881)
    short_file_evidence: float = 2.0
    short_name_coverage: float = 0.0
    # a question's type declaration (an `interface` or `type` chunk) whose lines are mostly
    # comments: x this. ky's `source/types/options.ts` documents every option in prose the
    # question's words match, above the code that reads them (tune and test halves of two stops
    # both gained a little, none lost: docs/benchmarks.md, eighteenth stop)
    doc_type: float = 0.7
    doc_type_share: float = 0.7  # ... from this share of its non-blank lines on
    # a question's C or C++ header whose implementation (a source file of its name, longer) is a
    # candidate: x this. leveldb's `db/db_impl.h` declares in the question's words what
    # `db/db_impl.cc` does (tune halves: leveldb's fourth set 0.679 -> 0.734, no C or C++ set lower)
    header: float = 0.5


OFF: dict[str, dict[str, Any]] = {
    "docs": {"docs": 1.0, "docs_question": 1.0},
    "config": {"config": 1.0, "config_down": False},
    "site": {"site": 1.0},
    "tooling": {"tooling": 1.0, "tooling_down": False},
    "older": {"older": 1.0},
    "definition": {"definition": 1.0},
    "package": {"package": 1.0},
    "file": {"file_evidence": 0.0},
    "tested": {"tested": 0.0},
    "history": {"history": 0.0},
    "past-words": {"past_words": 0.0, "past_words_request": 0.0},
    "symbol": {"symbol": 0.0},
    "pipeline": {"pipeline": 0.0},
    "filename": {"name_coverage": 0.0},
    "dependency": {"dependency": 0.0},
    "path": {"path": 0.0},
    "lexical-only": {"lexical_only": 1.0},
    "short": {"lexical_only": 1.0, "short_file_evidence": 1.0, "short_name_coverage": 1.0},
    "doc-type": {"doc_type": 1.0},
    "header": {"header": 1.0},
}


def switched_off(w: Weights, names: Iterable[str]) -> Weights:
    for name in names:
        w = dataclasses.replace(w, **OFF[name])
    return w


@dataclass
class Candidate:
    """One fused hit on its way to rank(): `score` starts as the fused score and each signal
    that moves it appends (signal, change, why) to `moved`."""

    hit: Scored
    fused: float
    dense_rank: int | None
    lexical_rank: int | None
    score: float = 0.0
    moved: list[dict[str, Any]] = field(default_factory=list)
    # a secondary role a signal gave it (a config file the query does not name): ranking.py moves
    # it down as it moves tests down; None: its path decides (ranking.role_of)
    role: str | None = None
    # how many earlier commits with one of the query's words changed its file (past words' list)
    past_commits: int = 0
    # the share of the latest changes that edited its page, when most do (edited.mark)
    edited: float = 0.0
    # it declares the one name the query is, and no source file does (a helper only a benchmark
    # defines): ranking.py leaves it in place, whatever its role (named.apply_definition)
    defines_asked: bool = False

    def __post_init__(self) -> None:
        self.score = self.fused

    @functools.cached_property
    def path(self) -> str:
        # read by every signal for every candidate: ~5,000 times a search
        return str(self.hit.payload.get("relative_path", ""))

    def scale(self, signal: str, factor: float, why: str) -> None:
        if factor == 1.0:
            return
        new = self.score * factor
        self.moved.append({"signal": signal, "change": round(new - self.score, 6), "why": why})
        self.score = new

    def add(self, signal: str, amount: float, why: str) -> None:
        if amount == 0:
            return
        self.moved.append({"signal": signal, "change": round(amount, 6), "why": why})
        self.score += amount


def in_order(hits: Sequence[Scored]) -> list[Scored]:
    """A list's hits by score, equal scores by path then id: the store returns ties in the order
    its segments hold them, which the crawl's order decides, so two indexes of one commit ranked
    three files that differ by one word three ways (their BM25 scores equal)."""
    return sorted(hits, key=lambda h: (-h.score, str(h.payload.get("relative_path", "")), h.id))


def fuse(
    dense: Sequence[Scored],
    lexical: Sequence[Scored],
    *,
    k: int,
    weights: tuple[float, float],
    unranked_dense: str | None = None,
) -> list[Candidate]:
    """Reciprocal rank fusion as Qdrant computes it (weight / (k + 0-based rank), summed over the
    lists), done here so each candidate keeps its rank in each list. A lexical hit whose payload
    has `unranked_dense` true (no dense vector yet) gets its lexical rank for the dense list too."""
    by_id: dict[str, Candidate] = {}
    for which, hits, weight in (("dense", dense, weights[0]), ("lexical", lexical, weights[1])):
        for i, h in enumerate(in_order(hits)):
            c = by_id.get(h.id)
            if c is None:
                c = by_id[h.id] = Candidate(h, 0.0, None, None)
            c.fused += weight / (k + i)
            if which == "lexical" and unranked_dense and h.payload.get(unranked_dense) is True:
                c.fused += weights[0] / (k + i)
            if which == "dense":
                c.dense_rank = i + 1
            else:
                c.lexical_rank = i + 1
    for c in by_id.values():
        c.score = c.fused
    return list(by_id.values())
