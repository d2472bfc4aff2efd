"""A file's name as evidence (issue 34): the words of its name, split the way identifiers are
split, against the words of the question.

A question about publishing names `pre-publish.ts`; "sparo fetch behaves like git fetch" names
`fetch.ts`. The name is the strongest short description of a file a repository has, and the
embedded text and the chunk's words dilute it among a chunk's code. What counts is how much of
the name the question says: all of `fetch.ts`, two of the five words of
`GitRemoteFetchConfigService.ts`.
"""

from __future__ import annotations

import functools

from monodex.indexer.points import lexical

# Names that describe no content: every package has them.
_GENERIC = frozenset(
    "index mod lib main init __init__ src source sources util utils helper helpers common core "
    "types type base internal misc default defaults test tests spec".split()
)


_SUFFIXES = tuple("izations ization ations ation ings ing ers er ies ied ed es s e".split())


def _singular(word: str) -> str:
    """A word's stem, crudely: `coercing` and `coerce` both `coerc`, `serializer` and
    `serialization` both `serializ`, `cookies` `cooki`; a stem keeps at least four letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


@functools.lru_cache(maxsize=8192)
def name_words(path: str) -> frozenset[str]:
    """The words of the file's name less its extensions (`pre-publish.ts` -> pre, publish), in
    the singular, without generic ones (`index`, `utils`) nor the compounds made of the words
    (`gitremotefetchconfigservice` holds `git`)."""
    name = path.rsplit("/", 1)[-1]
    stem = name.split(".", 1)[0] or name.lstrip(".").split(".", 1)[0]  # `.eslintrc.js`
    words = {_singular(t) for t in lexical.terms(stem) if len(t) > 1}
    return frozenset(w for w in words if not any(o != w and o in w for o in words)) - _GENERIC


@functools.lru_cache(maxsize=64)
def _wanted(query_words: frozenset[str]) -> frozenset[str]:
    return frozenset(_singular(w) for w in query_words)


def name_coverage(query_words: frozenset[str], path: str) -> tuple[float, frozenset[str]]:
    """The share of the file name's words the question says, and those words: `fetch.ts` is
    wholly named by "sparo fetch ...", `GitRemoteFetchConfigService.ts` by two fifths of it."""
    own = name_words(path)
    if not own or not query_words:
        return 0.0, frozenset()
    said = own & _wanted(query_words)
    return len(said) / len(own), said
