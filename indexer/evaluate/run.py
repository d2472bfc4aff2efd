"""One evaluation of a label (`monodex eval`): its questions ranked by the search every mode asks
for, exactly as `monodex search` ranks them (same function, default options, the catalog's
`search` tuning from config.json), and by a plain BM25
over the label's whole files, then scored (report.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from monodex.indexer.evaluate import past, questions, report
from monodex.indexer.evaluate.bm25 import BM25
from monodex.indexer.evaluate.metrics import AT, Listed
from monodex.indexer.evaluate.questions import Built, Question
from monodex.indexer.git.source import Source, open_source
from monodex.indexer.history.cochanges import History
from monodex.indexer.points import filters, labelmeta, lexical, membership
from monodex.indexer.rank import ranking
from monodex.indexer.read import search as searching
from monodex.indexer.session import Session

from monodex.errors import MonodexError, UsageError
from monodex.git import cli as gitcli
from monodex.observe.progress import OnProgress
from monodex.requests import EvalRequest
from monodex.schema.eval import EvalAnswer, HistorySignal
from monodex.schema.payload import Key
from monodex.settings.config import SearchTuning

BM25_NAME = "bm25"


@dataclass(frozen=True)
class LabelFiles:
    """The label's files as it stores them: whole text (its chunks joined in order) and the
    chunk kind of their first chunk (a changelog is one by kind, not only by name)."""

    text: dict[str, str]
    kind: dict[str, str]

    @classmethod
    def read(cls, s: Session, label_id: str) -> LabelFiles:
        parts: dict[str, list[tuple[int, str]]] = {}
        kind: dict[str, str] = {}
        keys = (Key.RELATIVE_PATH, Key.CHUNK_ORDINAL, Key.TEXT, Key.CHUNK_KIND)
        for r in s.store.scroll(filters.label_chunks(membership.of(s.store, label_id)), payload_keys=keys):
            path, ordinal = str(r.payload[Key.RELATIVE_PATH]), int(r.payload[Key.CHUNK_ORDINAL])
            parts.setdefault(path, []).append((ordinal, str(r.payload.get(Key.TEXT) or "")))
            if ordinal == 1:
                kind[path] = str(r.payload.get(Key.CHUNK_KIND) or "content")
        text = {p: "".join(t for _, t in sorted(chunks)) for p, chunks in sorted(parts.items())}
        return cls(text, kind)

    def is_answer(self, path: str) -> bool:
        """A file a question from history asks for: source, not a test, snapshot or changelog."""
        return path in self.text and ranking.role_of(path, self.kind.get(path)) == ranking.SOURCE


class QueryCache:
    """Each question embedded once for all modes (and variants, bench/rank_eval.py)."""

    def __init__(self, embed: Callable[[str], Sequence[float]]) -> None:
        self.embed = embed
        self.cache: dict[str, Sequence[float]] = {}

    def embed_query(self, text: str) -> Sequence[float]:
        if text not in self.cache:
            self.cache[text] = self.embed(text)
        return self.cache[text]


def evaluate(
    s: Session, r: EvalRequest, progress: OnProgress | None = None, cancel: threading.Event | None = None
) -> EvalAnswer:
    started = time.monotonic()
    cat = s.config().catalog(r.catalog)
    tuning = SearchTuning(
        lexical_weight=cat.search.lexical_weight if r.lexical_weight is None else r.lexical_weight,
        history_weight=cat.search.history_weight if r.history_weight is None else r.history_weight,
    )
    state = labelmeta.require_label(s.store, r.catalog, r.label)
    files = LabelFiles.read(s, state.label_id)
    source = open_source(cat, s.paths)
    commit = state.commit_oid or source.resolve(None)  # a working-directory label: HEAD's history
    built, dropped = _questions(r, source, commit, files)
    chosen = [q for q in built.questions if r.split in ("both", "all") or q.split == r.split]
    if not chosen:
        raise UsageError(
            f"none of the {len(built.questions)} questions is in the {r.split} half",
            "use --split both to see both halves",
        )
    notes = _coverage_notes(s, state.label_id, r.modes)
    if not state.crawl_complete:
        notes.append("the label's last crawl is not complete: figures are for what is indexed so far")
    counts = History.open(s.paths.state_dir, r.catalog)
    try:
        signal, ranked = _history_signal(source, commit, counts, from_file=r.questions is not None)
        rows, listed = _rank_all(s, r, chosen, files, ranked, tuning, progress=progress, cancel=cancel)
    finally:
        if counts is not None:
            counts.close()
    scores = report.build(
        chosen, rows, systems=[*r.modes, BM25_NAME], split=r.split, per_query=r.per_query, listed=listed
    )
    notes += report.advice(scores["results"], r.split, r.catalog)
    answer: EvalAnswer = {
        "catalog": r.catalog,
        "label": r.label,
        "commit": state.commit_oid,
        "questions": report.counts(built, chosen, dropped=dropped, source=_source(r, built)),
        "tuning": {"lexical_weight": tuning.lexical_weight, "history_weight": tuning.history_weight},
        "split": r.split,
        "systems": [*r.modes, BM25_NAME],
        "history_signal": signal,
        **scores,
        "notes": notes,
        "seconds": round(time.monotonic() - started, 1),
    }
    return answer


def _source(r: EvalRequest, built: Built) -> str:
    if r.questions is not None:
        return f"file {r.questions['source']}"
    commits = len(built.questions) - built.pull_requests
    return f"history: {built.pull_requests} pull requests, {commits} commits"


def _questions(r: EvalRequest, source: Source, commit: str, files: LabelFiles) -> tuple[Built, int]:
    """The questions, and how many relevant paths of a file's were dropped (not indexed)."""
    if r.questions is not None:
        return _from_file(r.questions, files)
    repo = source.catalog.path
    try:
        changes = questions.first_parent(repo, commit, max_commits=r.max_commits)
        built = questions.from_history(
            changes, indexed=files.text, is_answer=files.is_answer, limit=r.limit_questions
        )
    except gitcli.Failed as e:
        problem = f"cannot read the history of {repo} at {commit[:12]}: {e}"
        raise MonodexError(problem, "check that 'git log' works there") from e
    if not built.questions:
        skipped = ", ".join(f"{why} {n}" for why, n in built.skipped.most_common()) or "none"
        raise UsageError(
            f"no question found in the history of {r.catalog}:{r.label} ({built.walked} commits read; "
            f"skipped: {skipped})",
            "write your own and pass them with --questions FILE (JSON lines: "
            '{"query": "...", "relevant": ["path/in/repo"]})',
        )
    return built, 0


def _from_file(doc: dict[str, Any], files: LabelFiles) -> tuple[Built, int]:
    built, dropped = Built(), 0
    for q in doc["queries"]:
        kept = tuple(p for p in q["relevant"] if p in files.text)
        dropped += len(q["relevant"]) - len(kept)
        lines = (
            {p: spans for p, spans in (q.get("lines") or {}).items() if p in kept} if "lines" in q else None
        )
        if kept:
            built.questions.append(Question(q["id"], q["query"], kept, kind=q.get("kind"), lines=lines))
        else:
            built.skipped["no relevant file indexed"] += 1
    if not built.questions:
        raise UsageError(
            f"none of the {len(doc['queries'])} questions of {doc['source']} has a relevant file "
            "indexed in this label",
            "write paths relative to the repository root, as 'monodex search' prints them",
        )
    return built, dropped


def _coverage_notes(s: Session, label_id: str, modes: Sequence[str]) -> list[str]:
    if modes == ("lexical",):
        return []
    covered, waiting, _ = searching.coverage(s.store, label_id)
    if not waiting:
        return []
    return [
        f"dense vectors cover {covered:.0%} of this label: hybrid and dense figures are not final "
        "(phase two is still filling them; 'monodex search --fresh --wait-dense' waits for it)"
    ]


Ranked = Callable[[Question], Any]  # the co-change counts a question is ranked with


def _history_signal(
    source: Source, commit: str, counts: History | None, *, from_file: bool
) -> tuple[HistorySignal, Ranked]:
    """How the co-change signal takes part, and the counts each question is ranked with."""
    if counts is None:
        note = "off: no co-change counts for this catalog yet (a crawl counts them), as in a search now"
        return {"how": "off", "note": note}, lambda q: None
    if from_file:
        return {"how": "full", "note": "the catalog's counts, as a search has them"}, lambda q: counts
    growing, before = past.as_of(source.catalog.path, commit, source.policy.should_crawl)
    note = "as of each question's change: only the commits that landed before it (none learns from its own)"
    return {"how": "as-of", "note": note}, lambda q: growing.upto(before.get(q.commit or "", 0))


def _rank_all(
    s: Session,
    r: EvalRequest,
    chosen: list[Question],
    files: LabelFiles,
    counts_for: Ranked,
    tuning: SearchTuning,
    *,
    progress: OnProgress | None,
    cancel: threading.Event | None,
) -> tuple[dict[str, dict[str, list[str]]], dict[str, dict[str, list[Listed]]]]:
    """{question id: {system: distinct files, best first}}, and for the modes each result's file
    and lines, each mode ranked with the catalog's `tuning` as `search` ranks. Asked oldest first:
    history questions come newest first along the first-parent line, and their as-of counts only
    grow."""
    paths = list(files.text)
    bm25 = BM25([files.text[p] for p in paths])
    embedder = QueryCache(lambda text: s.engine.embed_query(text))  # the model: only if a mode needs it
    out: dict[str, dict[str, list[str]]] = {}
    listed: dict[str, dict[str, list[Listed]]] = {}
    for done, q in enumerate(reversed(chosen), start=1):
        if cancel is not None and cancel.is_set():
            raise MonodexError("the evaluation was stopped", "run it again")
        counts = counts_for(q)
        listed[q.id] = {m: _search(s, embedder, r, q.query, m, counts, tuning) for m in r.modes}
        out[q.id] = {m: [path for path, _, _ in hits] for m, hits in listed[q.id].items()}
        out[q.id][BM25_NAME] = [paths[i] for i, _ in bm25.search(q.query, n=AT)]
        if progress is not None:
            progress(done, len(chosen), 0, "eval")
    return out, listed


def _search(
    s: Session, embedder: QueryCache, r: EvalRequest, text: str, mode: str, counts: Any, tuning: SearchTuning
) -> list[Listed]:
    """The files `monodex search --mode MODE` lists for `text`, best first, with their lines."""
    if mode == "lexical" and not lexical.query_vector(text).indices:
        return []  # no word to match: the CLI would refuse the question, which finds nothing
    found = searching.search(
        s.store,
        embedder,
        catalog=r.catalog,
        label=r.label,
        text=text,
        limit=AT,
        ranking=searching.Ranking.tuned(
            mode, lexical_weight=tuning.lexical_weight, history_weight=tuning.history_weight
        ),
        history=counts,
    )
    return [
        (str(h[Key.RELATIVE_PATH]), int(h[Key.START_LINE] or 0), int(h[Key.END_LINE] or 0))
        for h in found.results
    ]
