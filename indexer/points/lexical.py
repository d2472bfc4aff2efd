"""The sparse `lexical` vector of a chunk and of a query: keyword matching that knows code.

Code names are compounds: `JsonFile.loadAndValidate`, `node-core-library`, `package_deps_hash`,
`libraries/rush-lib/src/api/RushConfiguration.ts`. A term list keeps each compound whole (an
exact name is the strongest signal) and also its identifiers and their camelCase / snake_case /
kebab-case words, lowercased, so "load and validate json" meets `JsonFile.loadAndValidate`.

Document values are BM25's term-frequency part; Qdrant's IDF modifier supplies the inverse
document frequency at query time, so no corpus statistics are kept here. Terms are hashed to
32-bit indices (xxh32): at a few hundred thousand distinct terms, collisions are negligible.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter

import xxhash
from monodex.indexer.store.base import SparseVector

K1 = 1.2
B = 0.75
# BM25 normalises by the corpus' mean document length; chunks are bounded by the chunk budget,
# so a fixed mean (terms in a typical ~800-byte chunk with its header) stands in for it.
AVG_TERMS = 220.0
MAX_TERM = 80  # longer "words" are data (hashes, base64), not names

_COMPOUND = re.compile(r"[A-Za-z0-9_$]+(?:[-./@][A-Za-z0-9_$]+)*")
_SEPARATORS = re.compile(r"[-./@_$]+")
_WORDS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


def terms(text: str) -> list[str]:
    """Every term of `text`, in order, with repeats (a compound, then its identifiers, then their
    words; each level only when it differs from the one above)."""
    out: list[str] = []
    cache = _TERMS
    for compound in _COMPOUND.findall(text):
        found = cache.get(compound)
        if found is None:
            found = _compound_terms(compound)
            if len(cache) >= _CACHE_SIZE:
                cache.clear()
            cache[compound] = found
        out.extend(found)
    return out


# The same names recur across a repository's chunks: splitting each compound once, and hashing
# each term once, took document_vector from 3.8 to 2.1 s of CPU over rushstack's 34,045 chunks
# (issue 36). Bounded: a crawl's memory must not grow with the repository (cleared when full).
_CACHE_SIZE = 50_000
_TERMS: dict[str, tuple[str, ...]] = {}
_INDEXES: dict[str, int] = {}


def _compound_terms(compound: str) -> tuple[str, ...]:
    if len(compound) > MAX_TERM:
        return ()
    out: list[str] = []
    identifiers = [p for p in _SEPARATORS.split(compound) if p]
    if len(identifiers) > 1:
        out.append(compound.lower())
    for ident in identifiers:
        lowered = ident.lower()
        if len(lowered) > 1 and not lowered.isdigit():
            out.append(lowered)
        words = _WORDS.findall(ident)
        if len(words) > 1:
            out.extend(w.lower() for w in words if len(w) > 1 and not w.isdigit())
    return tuple(out)


def _index(term: str) -> int:
    found = _INDEXES.get(term)
    if found is None:
        found = int(xxhash.xxh32_intdigest(term.encode("utf-8", "surrogatepass")))
        if len(_INDEXES) >= _CACHE_SIZE:
            _INDEXES.clear()
        _INDEXES[term] = found
    return found


def _vector(weights: dict[int, float]) -> SparseVector:
    indices = sorted(weights)
    return SparseVector(indices=tuple(indices), values=tuple([weights[i] for i in indices]))


def document_vector(text: str) -> SparseVector:
    found = terms(text)
    if not found:
        return SparseVector((), ())
    norm = K1 * (1 - B + B * len(found) / AVG_TERMS)
    weights: dict[int, float] = {}
    known = _INDEXES
    for term, tf in Counter(found).items():
        i = known.get(term)
        if i is None:
            i = _index(term)
        w = tf * (K1 + 1) / (tf + norm)
        before = weights.get(i)
        weights[i] = w if before is None else before + w  # two terms can hash alike: both count
    return _vector(weights)


# English words of a question that name nothing in code. Only queries drop them: in code `for`,
# `in`, `new` and `this` are keywords the IDF already discounts, and `get`/`set` name things.
QUERY_STOPWORDS = frozenset(
    "a about an and any are as at be been by can could do does doing for from had has have how i "
    "if in into is it its me my of on or our should so than that the their them then there these "
    "they this those to was we were what when where which while who why will with would you your".split()
)


# The word that opens a change request ("Fix ...", "Add ...", "fix(scope): ...", "[rush] Support
# ...") says a change is asked for, not what it touches; in code the words are everywhere
# (`addProject`, `// fix:`, `supportsColor`). Only the opening word is dropped ("rush add" names a
# command), and only these few: on PR titles (bench/eval/, issue 14) they were the ones whose
# removal helped the tune half of rushstack and sparo and did not hurt the test half.
OPENING_VERBS = frozenset({"fix", "add", "support"})
# Conventional-commit types: `feat:` before a title classifies it; `heft:` names a package.
COMMIT_TYPES = frozenset(
    {"feat", "fix", "chore", "refactor", "docs", "perf", "test", "build", "ci", "style", "revert"}
)
OPENING = re.compile(
    r"^\s*(?:\[[^\]]*\]\s*)*"  # [rush-lib] tags
    r"(?:(?P<type>[A-Za-z]+)(?:\([^)]*\))?!?:\s*)?"  # feat(scope):
    r"(?P<verb>[A-Za-z]+)?"
)


def request_text(text: str) -> str:
    """`text` less its opening verb and conventional-commit type, if it has them."""
    m = OPENING.match(text)
    if m is None:
        return text
    cut = []
    if m.group("verb") and m.group("verb").lower() in OPENING_VERBS:
        cut.append(m.span("verb"))
    if m.group("type") and m.group("type").lower() in COMMIT_TYPES:
        cut.append(m.span("type"))
    for start, end in sorted(cut, reverse=True):
        text = text[:start] + text[end:]
    return text


def query_vector(text: str, *, base_forms: bool = False) -> SparseVector:
    """Each distinct query term once (the IDF modifier weighs them), question words and the
    opening verb of a change request left out (all of them kept if nothing else is left); with
    `base_forms`, also each inflected word's base forms (below) at BASE_FORM_WEIGHT; and the names
    pairs of adjacent words make (`joined`) at JOINED_WEIGHT."""
    kept = query_terms(text) or terms(text)
    weights = {_index(t): 1.0 for t in kept}
    if base_forms:
        for term in dict.fromkeys(kept):
            for base in forms_of(term):
                weights.setdefault(_index(base), BASE_FORM_WEIGHT)
    for name in joined(text, base_forms=base_forms):
        weights.setdefault(_index(name), JOINED_WEIGHT)
    return _vector(weights)


# Two words a query puts side by side are often one name in the code: "error handler" is
# `errorHandler` or `error_handler`, "child process" `ChildProcess`, and a chunk that has the name
# says more than one that has both words apart. Stored terms keep an identifier whole, lowercased
# (`errorhandler`), and a snake_case compound whole (`error_handler`), so the query asks for both
# forms of each pair of adjacent words, as guesses, below a word's weight. Tune halves, 0.3
# against none: hand-written +0.001, short +0.015, phrases +0.005 nDCG@10, pull requests +0.001
# R@10 and +0.002 MRR@10 (docs/benchmarks.md, 2026-12-05); 0.5 and 1.0 did no better.
JOINED_WEIGHT = 0.3
_WORD = re.compile(r"[A-Za-z0-9_$]+")


def joined(text: str, *, base_forms: bool = False) -> list[str]:
    """The names two adjacent words of the query would make (`errorhandler`, `error_handler`), with
    their base forms when `base_forms` ("batched queries": `batchquery`). Only plain words of three
    letters or more, no question words: a word written as code (`splitBatch`) is a name already."""
    words = _WORD.findall(request_text(text))
    out: list[str] = []
    for a, b in itertools.pairwise(words):
        first, second = a.lower(), b.lower()
        if first in QUERY_STOPWORDS or second in QUERY_STOPWORDS:
            continue
        if not (first.isalpha() and second.isalpha()) or len(first) < 3 or len(second) < 3:
            continue
        if (a != first and not (a[0].isupper() and a[1:].islower())) or b != second:
            continue  # `ChildProcess`, `HTTP`: written as code; "Error handler" opens a sentence
        firsts = [first, *forms_of(first)] if base_forms else [first]
        seconds = [second, *forms_of(second)] if base_forms else [second]
        out += [f"{x}{sep}{y}" for x in firsts for y in seconds for sep in ("", "_")]
    return list(dict.fromkeys(out))


# A question is written in English, code in names: "batched queries" asks about `batch` and
# `query`, "buffering writes" about `buffer`, "closures" about `closure`. Terms match exactly
# (an identifier's words are stored as they are spelled), so a question also asks for the base
# forms of its inflected words. Each is a guess ("batched" gives `batch` and `batche`; only a
# form some chunk has can match), so it weighs less than the word as written. Questions only
# (read/search.py): a change request says the commit's words, which are the code's already, and
# variants of them cost tauri's pull-request titles 0.035 R@10 (docs/benchmarks.md).
BASE_FORM_WEIGHT = 0.5
_MIN_INFLECTED = 5  # "uses", "data": shorter words are too often not inflections


def forms_of(term: str) -> list[str]:
    """The base forms an inflected English word may have: plural -s/-es/-ies, past -ed, -ing
    (with the doubled consonant or the dropped e of `stopped`, `closing`). [] for other terms."""
    if len(term) < _MIN_INFLECTED or not term.isalpha():
        return []
    out: list[str] = []
    if term.endswith("ies"):
        out.append(term[:-3] + "y")
    elif term.endswith(("sses", "xes", "zes", "ches", "shes")):
        out.append(term[:-2])
    elif term.endswith("s") and not term.endswith(("ss", "us", "is")):
        out.append(term[:-1])
    for suffix in ("ed", "ing"):
        if term.endswith(suffix):
            stem = term[: -len(suffix)]
            out += [stem, stem + "e"]
            if len(stem) > 3 and stem[-1] == stem[-2]:
                out.append(stem[:-1])
    return [f for f in dict.fromkeys(out) if len(f) >= 3 and f != term]


def query_terms(text: str) -> list[str]:
    """The terms of `text` a query matches with: less question words and a change request's
    opening verb and type (may be empty). Also how a commit subject is read (rank/pastwords.py)."""
    return [t for t in terms(request_text(text)) if t not in QUERY_STOPWORDS]


def query_indices(text: str) -> tuple[int, ...]:
    """query_terms() distinct, as the 32-bit indices the sparse vectors give them: how a commit
    subject's words are counted (history/cochanges.py) and a query's looked up (rank/pastwords.py)."""
    return tuple(dict.fromkeys(_index(t) for t in query_terms(text)))
