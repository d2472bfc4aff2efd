"""Ranking signals a monorepo index already holds, applied after the dense and lexical lists are
fused (issue 14): what kind of document a hit is, whether the query names its package, whether it
defines a name the query asks about, and how much of its file matches.

Each signal is a pure function of the candidates and the query; each records what it changed and
why, so `--explain` can show it. The constants are global and few, set by hand on the `tune` half
of bench/eval/ (bench/rank_eval.py) and kept only if the `test` half agreed (docs/benchmarks.md).
No query text or commit message is stored anywhere: everything here is computed per query.
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from typing import Any

from monodex.indexer.points import lexical
from monodex.indexer.question import query
from monodex.indexer.rank.candidates import Candidate, Weights
from monodex.indexer.rank.kinds import (
    apply_ci,
    apply_config,
    apply_docs,
    apply_headers,
    apply_older,
    apply_site,
    apply_tooling,
)
from monodex.indexer.rank.named import (
    apply_definition,
    apply_dependency,
    apply_filename,
    apply_package,
    apply_path,
    apply_stand_in_file,
)
from monodex.indexer.store.base import PENDING

from monodex.schema.payload import Key

# --- file-level evidence ---------------------------------------------------------------------


def apply_file_evidence(cands: list[Candidate], w: Weights) -> None:
    """A file whose several chunks match is likelier the answer than one chunk of a file that
    matched one rare word: each hit gains `file_evidence` x the scores of its file's next best
    `file_chunks` chunks among the candidates (scores after the signals above)."""
    if w.file_evidence == 0:
        return
    by_file: dict[Any, list[Candidate]] = defaultdict(list)
    for c in cands:
        by_file[c.hit.payload.get("file_id")].append(c)
    bonus: dict[int, tuple[float, int]] = {}
    for group in by_file.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda c: -c.score)
        for c in group:
            others = [o.score for o in group if o is not c][: int(w.file_chunks)]
            bonus[id(c)] = (w.file_evidence * sum(others), len(others))
    for c in cands:
        if id(c) in bonus:
            amount, n = bonus[id(c)]
            c.add("file", amount, f"{n} more chunk(s) of this file match")


# --- a test that matches points at what it tests ------------------------------------------------

_TEST_FILE = re.compile(r"\.(test|spec)(\.[cm]?[jt]sx?)$")
_TEST_FOLDER = re.compile(r"/(test|tests|__tests__)/")


def tested_file(path: str) -> list[str]:
    """The paths the file a test file tests may have: `Foo.test.ts` next to `Foo.ts`, in a
    `test/` or `__tests__/` folder beside it (`src/logic/test/Foo.test.ts` -> `src/logic/Foo.ts`),
    or a package's `test/` folder mirroring its `src/` (`pkg/test/foo.test.ts` -> `pkg/src/foo.ts`).
    [] for a file that is not a test."""
    m = _TEST_FILE.search(path)
    if m is None:
        return []
    same = path[: m.start()] + m.group(2)
    return list(dict.fromkeys([same, _TEST_FOLDER.sub("/", same), _TEST_FOLDER.sub("/src/", same)]))


def apply_tested(cands: list[Candidate], w: Weights) -> None:
    """A test repeats the words of what it checks ("does not block on failure"), and tests are
    moved down as answers (ranking.py); what a matching test says is evidence for the file it
    tests: each of that file's hits gains `tested` x the test's best score among the candidates.
    Only files the search found gain; nothing is added to the candidates."""
    if w.tested == 0:
        return
    by_path: dict[str, list[Candidate]] = defaultdict(list)
    for c in cands:
        by_path[c.path].append(c)
    best: dict[str, tuple[float, str]] = {}
    for c in cands:
        subject = next((p for p in tested_file(c.path) if p in by_path), None)
        if subject is not None and c.score > best.get(subject, (0.0, ""))[0]:
            best[subject] = (c.score, c.path)
    for subject, (score, test) in best.items():
        for c in by_path[subject]:
            c.add("tested", w.tested * score, f"its test {test} matches too")


# --- a short question's lexical-only hits -----------------------------------------------------


def is_short(text: str, q: query.Query, w: Weights) -> bool:
    """A short question ("how are enum values mapped to json strings"): asked as a question, no
    code name, at most `short_terms` words the lexical list matches. Not a change request: its words
    are its commit's."""
    if not q.question or q.names or q.is_symbol:
        return False
    return len(set(lexical.query_terms(text))) <= w.short_terms


def apply_lexical_only(cands: list[Candidate], short: bool, w: Weights) -> None:
    """A short question (is_short) is a few common words: the lexical list ranks first whatever says them
    most (gson's reflective adapter for "values" and "json"), the model ranks the enum adapter. A
    hit of such a question that only the lexical list found is x `lexical_only`; one in both lists
    keeps its score. Only where the model ranked the label: a chunk still waiting for its vector
    (phase two) has no dense rank to miss."""
    if w.lexical_only == 1.0 or not short or not any(c.dense_rank for c in cands):
        return
    for c in cands:
        if c.dense_rank is None and c.lexical_rank is not None and c.hit.payload.get(PENDING) is not True:
            c.scale("lexical-only", w.lexical_only, "a short question's hit the model did not rank")


# --- a question's type declarations that are mostly prose -------------------------------------

DOC_TYPES = frozenset({"interface", "type"})
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*|#|\"\"\"|\'\'\'|--)")


def apply_doc_type(cands: list[Candidate], q: query.Query, w: Weights) -> None:
    """A type declaration whose lines are mostly comments says a question's words in prose (ky's
    options type documents every option) while the code that does the thing says them in names:
    for a question (not one name, not a change request) such a chunk is x `doc_type`. Only type
    declarations: a function's or a module's comment is often the answer itself (leveldb's
    `dbformat.h`, libuv's `EMFILE` paragraph)."""
    if w.doc_type == 1.0 or not q.question or q.is_symbol:
        return
    for c in cands:
        if c.hit.payload.get(Key.CHUNK_TYPE) not in DOC_TYPES:
            continue
        lines = [line for line in str(c.hit.payload.get(Key.TEXT, "")).splitlines() if line.strip()]
        said = sum(bool(_COMMENT_LINE.match(line)) for line in lines)
        if lines and said >= w.doc_type_share * len(lines):
            c.scale("doc-type", w.doc_type, f"a type declaration, {said} of its {len(lines)} lines comments")


def apply(cands: list[Candidate], text: str, w: Weights) -> list[Candidate]:
    q = query.read(text)
    short = is_short(text, q, w)  # read once: the rule below and the weights it changes
    apply_lexical_only(cands, short, w)
    if short:
        w = dataclasses.replace(
            w,
            file_evidence=w.file_evidence * w.short_file_evidence,
            name_coverage=w.name_coverage * w.short_name_coverage,
        )
    apply_docs(cands, q, w)
    apply_ci(cands, q, w)
    apply_config(cands, text, w)
    apply_site(cands, text, w)
    apply_tooling(cands, q, w)
    apply_older(cands, text, w)
    apply_package(cands, text, w)
    apply_definition(cands, q, w)
    apply_filename(cands, q, w)
    apply_dependency(cands, q, w)
    apply_file_evidence(cands, w)
    apply_tested(cands, w)
    apply_stand_in_file(cands, q)
    apply_path(cands, q, w)
    apply_doc_type(cands, q, w)
    apply_headers(cands, q, w)
    return cands
