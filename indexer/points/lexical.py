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
    for m in _COMPOUND.finditer(text):
        compound = m.group()
        if len(compound) > MAX_TERM:
            continue
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
    return out


def _index(term: str) -> int:
    return int(xxhash.xxh32_intdigest(term.encode("utf-8", "surrogatepass")))


def _vector(weights: dict[int, float]) -> SparseVector:
    ordered = sorted(weights.items())
    return SparseVector(indices=tuple(i for i, _ in ordered), values=tuple(v for _, v in ordered))


def document_vector(text: str) -> SparseVector:
    found = terms(text)
    if not found:
        return SparseVector((), ())
    norm = K1 * (1 - B + B * len(found) / AVG_TERMS)
    weights: dict[int, float] = {}
    for term, tf in Counter(found).items():
        i = _index(term)
        weights[i] = weights.get(i, 0.0) + tf * (K1 + 1) / (tf + norm)
    return _vector(weights)


# English words of a question that name nothing in code. Only queries drop them: in code `for`,
# `in`, `new` and `this` are keywords the IDF already discounts, and `get`/`set` name things.
QUERY_STOPWORDS = frozenset(
    "a about an and any are as at be been by can could do does doing for from had has have how i "
    "if in into is it its me my of on or our should so than that the their them then there these "
    "they this those to was we were what when where which while who why will with would you your".split()
)


def query_vector(text: str) -> SparseVector:
    """Each distinct query term once (the IDF modifier weighs them), question words left out."""
    kept = [t for t in terms(text) if t not in QUERY_STOPWORDS]
    return _vector({_index(t): 1.0 for t in (kept or terms(text))})
