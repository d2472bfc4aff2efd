"""The read side's search: one label's chunks (or several labels'), ranked; how much of a label has
its dense vectors. Reading a file back is view.py's, listing labels listing.py's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, cast

from monodex.indexer.points import filters as stored
from monodex.indexer.points import lexical, membership
from monodex.indexer.points.labelmeta import LabelState, require_label
from monodex.indexer.points.langs import lang_values
from monodex.indexer.points.membership import Held
from monodex.indexer.question import query
from monodex.indexer.rank import candidates, cochange, edited, signals
from monodex.indexer.rank import ranking as ranking_
from monodex.indexer.read import joined
from monodex.indexer.store.base import (
    PENDING,
    RRF_K,
    Condition,
    Filter,
    Match,
    MatchAny,
    SparseVector,
    Store,
)
from monodex.indexer.translations import copies

from monodex.errors import UsageError
from monodex.observe import progress
from monodex.schema.payload import HIT_FIELDS, Key
from monodex.schema.search import Hit, Part, Reading

RESULT_FIELDS = HIT_FIELDS  # search()'s name for them


class QueryEmbedder(Protocol):
    def embed_query(self, text: str) -> Sequence[float]: ...


@dataclass(frozen=True)
class Filters:
    """Narrowing a search: any of `paths` (a folder or file, relative to the repository root),
    and exactly `package`, `kind` and `lang` when given."""

    paths: tuple[str, ...] = ()
    package: str | None = None
    kind: str | None = None
    lang: str | None = None

    def conditions(self) -> tuple[Condition, ...]:
        out: list[Condition] = []
        if self.paths:
            out.append(MatchAny(Key.PATH_PREFIXES, self.paths))
        if self.package:
            out.append(Match(Key.PACKAGE_NAME, self.package))
        if self.kind:
            out.append(Match(Key.CHUNK_KIND, self.kind))
        if self.lang:
            out.append(MatchAny(Key.LANG, lang_values(self.lang)))
        return tuple(out)


@dataclass(frozen=True)
class Overlay:
    """A worktree's uncommitted files over the label (write/overlay.py): chunks of `membership`
    join the label's, and the label's files in `hidden` (at paths the worktree changed) leave."""

    membership: str
    hidden: tuple[str, ...] = ()

    def chunks(self, label: Held, *more: Condition) -> Filter:
        return stored.overlay_chunks(label, self.membership, self.hidden, *more)


@dataclass(frozen=True)
class Scope:
    """The chunks a search reads: those of one label (the usual search) or of any of several
    (--labels, --all-labels: a chunk shared by many is still one hit), less those held by any
    label in `without` (a diff's side: what one label holds and the other does not); one label
    may have a worktree's `overlay` laid over it."""

    states: tuple[LabelState, ...]
    held: tuple[Held, ...]  # each state's membership (points/membership.py)
    without: tuple[Held, ...] = ()
    overlay: Overlay | None = None  # a worktree's uncommitted files over the one label

    @classmethod
    def of(
        cls,
        store: Store,
        states: Sequence[LabelState],
        *,
        without: Sequence[str] = (),
        overlay: Overlay | None = None,
    ) -> Scope:
        held = tuple(membership.many_from_metadata([(st.label_id, st.extra) for st in states], store))
        return cls(tuple(states), held, tuple(membership.of_all(store, without)), overlay)

    @property
    def label_ids(self) -> tuple[str, ...]:
        return tuple(st.label_id for st in self.states)

    def filter(self, *more: Condition) -> Filter:
        if len(self.states) == 1 and not self.without:
            if self.overlay is not None:
                return self.overlay.chunks(self.held[0], *more)
            return stored.label_chunks(self.held[0], *more)
        return stored.labels_chunks(self.held, *more, without=self.without)


@dataclass(frozen=True)
class Found:
    """A search's hits, the mode that ranked them (hybrid falls back to dense on an old label,
    to lexical before any vector), what the caller should be told, and the dense coverage."""

    results: list[Hit]
    mode: str
    notes: list[str]
    dense_coverage: float
    reading: Reading | None = None  # with explain: how the query was read


# The lexical list's weight in the fusion, the dense list's being 1 (bench/quality.py measures it).
LEXICAL_WEIGHT = 1.0
# ... times this for a change request ("fix(cli): ...", "Add ..."): it says the commit's words,
# which are the code's, where a question says a reader's. Measured as of each change on 14
# monorepos' histories (bench/histories.py): R@10 / MRR@10 +0.012 / +0.005 on the tune halves (10
# repositories better, 2 worse), +0.009 / +0.007 on the test halves (11 better, 3 worse); the
# held-out pull-request sets +0.002 / +0.011 a question. 1.25 did less, and a higher weight for
# every query cost the hand-written questions 0.004 nDCG@10; they do not move with this one.
CHANGE_LEXICAL = 1.5


@dataclass(frozen=True)
class Ranking:
    mode: str = "hybrid"
    per_file: int = 1
    include_tests: bool = False
    explain: bool = False
    lexical_weight: float = LEXICAL_WEIGHT
    signals: candidates.Weights = candidates.Weights()

    @classmethod
    def tuned(cls, mode: str, *, lexical_weight: float, history_weight: float, **more: Any) -> Ranking:
        """A ranking with a catalog's tuning (config.json `catalogs.*.search`): the lexical list's
        weight, and the history's signals (co-change, past words) scaled by `history_weight`."""
        w = candidates.Weights()
        signals = replace(
            w,
            history=w.history * history_weight,
            past_words=w.past_words * history_weight,
            past_words_request=w.past_words_request * history_weight,
        )
        return cls(mode=mode, lexical_weight=lexical_weight, signals=signals, **more)


# The dense list of a hybrid search fetches this many times the pool. Config files split into many
# key-path chunks whose embedded text (path, package, keys) is near any question about the
# project; they are moved down after fusion, but first they fill the dense list and push answers
# out of it (sparo: R@10 0.913 -> 0.957 on the tune half; the lexical list gained nothing by it,
# rushstack and pnpm are unchanged: docs/benchmarks.md). Past the lexical list's end a dense hit's
# fused score is small (1/(k + rank)), so the hits it adds rise only by what the signals add.
DENSE_POOL = 2


# Hits each list fetches for any page up to POOL_PAGE results: the same candidates whatever the
# limit, so a hit's rank does not depend on --limit (issue 35: 7th at --limit 8, 8th at 20).
POOL = 50
POOL_PAGE = 20


# A listed file's other matching parts, named by their lines: of the answer files our hand-written
# questions find, the part listed is the answer for 66 % (concept) and 74 % (architecture); with
# its next two parts scoring half of it or more, 83 % and 87 %, at one more line range a hit on
# average (docs/benchmarks.md, 2026-12-05, sixth stop).
MORE_IN_FILE = 2
MORE_SHARE = 0.5


def _more_in_file(kept: Sequence[ranking_.Kept], cands: Sequence[candidates.Candidate]) -> list[list[Part]]:
    """For each kept hit, its file's next best chunks among the candidates (none listed already),
    best first."""
    taken = {k.hit.id for k in kept}
    by_file: dict[Any, list[candidates.Candidate]] = {k.hit.payload.get(Key.FILE_ID): [] for k in kept}
    for c in cands:
        if (more := by_file.get(c.hit.payload.get(Key.FILE_ID))) is not None and c.hit.id not in taken:
            more.append(c)
    out: list[list[Part]] = []
    for k in kept:
        floor = k.candidate.score * MORE_SHARE
        others = [c for c in by_file.get(k.hit.payload.get(Key.FILE_ID), []) if c.score >= floor > 0]
        others.sort(key=lambda c: (-c.score, ranking_._ordinal(c.hit)))
        out.append([_part(c) for c in others[:MORE_IN_FILE]])
    return out


def _part(c: candidates.Candidate) -> Part:
    p = c.hit.payload
    symbol = p.get(Key.SYMBOL_NAME)
    return Part(
        start_line=int(p.get(Key.START_LINE) or 0),
        end_line=int(p.get(Key.END_LINE) or 0),
        chunk_ordinal=int(p.get(Key.CHUNK_ORDINAL) or 0),
        symbol_name=None if symbol is None else str(symbol),
        score=round(c.score, 4),
    )


def _candidates(limit: int, per_file: int) -> int:
    """Hits fetched before demotion and grouping: enough that `limit` distinct files remain."""
    return POOL if limit * per_file <= POOL_PAGE else min(200, limit * per_file * 4)


def search(
    store: Store,
    embedder: QueryEmbedder,
    *,
    catalog: str,
    label: str | None = None,
    text: str,
    limit: int,
    filters: Filters = Filters(),
    ranking: Ranking = Ranking(),
    history: cochange.CoChanges | None = None,
    overlay: Overlay | None = None,
    scope: Scope | None = None,
) -> Found:
    """Hits ranked by `ranking.mode` (hybrid: Qdrant fuses dense and
    lexical by RRF), secondary files pushed down, at most per_file hits a file, the lower source
    hits re-ordered by what changed together with the top ones (`history`). The text, limit and
    options come checked by monodex/requests/. `scope` searches several labels at once (or a
    diff's side) instead of `label`: each chunk is one hit, whichever labels hold it."""
    # here, not at the top: chunkers load tree-sitter, and listing labels (status) must not
    from monodex.indexer.chunkers import LEXICAL_FORMAT

    if scope is None:
        assert label is not None, "search() needs a label or a scope"
        scope = Scope.of(store, (require_label(store, catalog, label),), overlay=overlay)
    mode, notes = ranking.mode, []
    state = min(scope.states, key=lambda st: int(st.extra.get("point_format", 1)))
    if int(state.extra.get("point_format", 1)) < LEXICAL_FORMAT:
        label = state.label
        recrawl = (
            f"monodex crawl --catalog {catalog} --label {label} --commit {state.commit_oid or 'HEAD'} --full"
        )
        if mode == "lexical" or filters.paths or filters.lang:
            raise UsageError(
                f"label {label!r} was indexed by an older monodex, without lexical vectors "
                "and path/language fields",
                f"re-crawl it once: '{recrawl}' (unchanged chunks keep their vectors: little model work)",
            )
        if mode == "hybrid":
            mode = "dense"
            notes.append(
                "this label predates lexical vectors, so the search was dense only; "
                f"for hybrid search run '{recrawl}'"
            )
    flt = scope.filter(*filters.conditions())
    n = _candidates(limit, ranking.per_file)
    covered, waiting, _ = _coverage(store, scope.filter())
    these = "this label" if len(scope.states) == 1 else "these labels"
    if waiting:
        # Phase two is filling the vectors: a chunk without one is found by its words only (the
        # dense list cannot rank it), so nothing in the label is invisible to a hybrid search.
        if mode == "hybrid" and covered == 0.0:
            mode = "lexical"  # no vector yet: the model would rank nothing
            notes.append(f"no chunk of {these} has its dense vector yet: lexical search only")
        elif mode in ("hybrid", "dense"):
            share = progress.percent(covered, left=waiting)  # the figure every other line shows
            rest = "lexical ranks the rest" if mode == "hybrid" else "a dense search sees only those"
            notes.append(f"dense vectors cover {share} of {these}: {rest}")
    dense = embedder.embed_query(text) if mode != "lexical" else None
    # a question's inflected words also ask for their base forms (lexical.forms_of)
    sparse = lexical.query_vector(text, base_forms=query.read(text).question) if mode != "dense" else None
    if mode == "lexical" and sparse is not None and not sparse.indices and not query.read(text).names:
        # (a name too short to be a word, flask's `g`, still finds its declaration: joined.definers)
        raise UsageError("the search text has no words to match", "use words or names from the code")
    if mode == "hybrid" and sparse is not None and not sparse.indices:
        mode = "dense"  # punctuation only: nothing for the lexical side to match
    if mode == "hybrid":
        assert dense is not None and sparse is not None
        # The two lists fused here rather than by Qdrant: the same RRF, and each candidate keeps
        # its rank in both lists for the signals and --explain. During phase two a chunk still
        # waiting for its vector has its lexical rank counted for the dense list too: its dense
        # rank is unknown, not bad, and left at nothing a file the new commit added would sink
        # below every older file the model ranks at all (measured by coverage: bench/two_phase.py).
        cands = candidates.fuse(
            store.search(dense, flt, limit=DENSE_POOL * n),
            store.search_sparse(sparse, flt, limit=n),
            k=RRF_K,
            weights=(1.0, ranking.lexical_weight * (CHANGE_LEXICAL if query.read(text).is_change else 1.0)),
            unranked_dense=PENDING if waiting else None,
        )
    elif mode == "dense":
        assert dense is not None
        cands = [
            candidates.Candidate(h, h.score, i, None)
            for i, h in enumerate(candidates.in_order(store.search(dense, flt, limit=n)), 1)
        ]
    else:
        assert sparse is not None
        cands = [
            candidates.Candidate(h, h.score, None, i)
            for i, h in enumerate(
                candidates.in_order(store.search_sparse(sparse, flt, limit=n)) if sparse.indices else [], 1
            )
        ]
    known = {c.hit.id for c in cands}
    cands += joined.definers(store, flt, query.read(text), ranking.signals, known=known)
    cands += joined.manifests(store, flt, query.read(text), ranking.signals, known=known)
    cands += joined.page_names(store, flt, cands, query.read(text), known=known)
    cands += joined.call_names(store, flt, cands, query.read(text), text, known=known)
    if mode == "hybrid":
        cands += joined.past_words(store, flt, text, history, ranking.signals, cands, dense, known=known)
    locale = query.read(text).locale or copies.SOURCE_LOCALE
    cands += joined.stand_ins(store, flt, cands, locale, dense, known=known)
    fused_order = {
        id(c): i
        for i, c in enumerate(sorted(cands, key=lambda c: (-c.fused, c.path, ranking_._ordinal(c.hit))), 1)
    }
    if query.read(text).may_be_change:  # only a change request or a phrase reads the latest changes
        edited.mark(cands, history)
    signals.apply(cands, text, ranking.signals)
    # every candidate file, not only `limit`: one below the limit may rise into it by history
    kept = ranking_.rank(
        cands,
        limit=len(cands) if history else limit,
        per_file=ranking.per_file,
        include_tests=ranking.include_tests,
        asks=query.read(text).asks,
        locale=locale,
        asked=query.read(text).question,
    )
    kept = cochange.reorder(kept, history, ranking.signals.history)[:limit]
    results = []
    for k, more in zip(kept, _more_in_file(kept, cands), strict=True):
        row: dict[str, Any] = {
            "score": round(k.candidate.score, 4),
            **{f: k.hit.payload.get(f) for f in RESULT_FIELDS},
        }
        if k.also:
            row["also"] = k.also  # the same page in other languages
        if more:
            row["more_in_file"] = more  # the file's next best parts
        results.append(row)
    if ranking.explain:
        ranks = _ranks(store, dense, sparse, flt, n) if mode != "hybrid" else None
        for r, k in zip(results, kept, strict=True):
            c = k.candidate
            r["explain"] = {
                "mode": mode,
                "fused_rank": fused_order[id(c)],
                "fused_score": round(c.fused, 6),
                "dense_rank": c.dense_rank if ranks is None else ranks["dense"].get(c.hit.id),
                "lexical_rank": c.lexical_rank if ranks is None else ranks["lexical"].get(c.hit.id),
                "signals": c.moved,
                "rank_after_signals": k.position,
                "role": k.role,
                "demoted": k.role != ranking_.SOURCE and not ranking.include_tests,
            }
    reading = query.reading(text) if ranking.explain else None
    return Found(cast("list[Hit]", results), mode, notes, covered, reading)


def coverage(
    store: Store, label_id: str, overlay: Overlay | None = None, *, held: Held | None = None
) -> tuple[float, int, int]:
    """(share of the label's chunks with a dense vector, chunks waiting for one, chunks), with
    the overlay's chunks when one is laid over the label; `held`: its membership, when read."""
    held = held or membership.of(store, label_id)
    flt = overlay.chunks(held) if overlay is not None else stored.label_chunks(held)
    return _coverage(store, flt)


def _coverage(store: Store, flt: Filter) -> tuple[float, int, int]:
    total = store.count(flt)
    pending = stored.narrowed(flt, Match(PENDING, True))
    waiting = store.count(pending) if total else 0
    return (1.0 if not total else round((total - waiting) / total, 4)), waiting, total


def _ranks(
    store: Store, dense: Sequence[float] | None, sparse: SparseVector | None, flt: Filter, n: int
) -> dict[str, dict[str, int]]:
    """Each list's own ranking of the candidates (None where a hit was not in that list's top n)."""
    out: dict[str, dict[str, int]] = {"dense": {}, "lexical": {}}
    if dense is not None:
        out["dense"] = {h.id: i for i, h in enumerate(store.search(dense, flt, limit=n), start=1)}
    if sparse is not None and sparse.indices:
        out["lexical"] = {h.id: i for i, h in enumerate(store.search_sparse(sparse, flt, limit=n), start=1)}
    return out
