"""The functions the best matching source files call, for the search to fetch their declarations:
a question about how something works is often answered by several files, the one whose words
match and the ones it hands the work to (leveldb's "when is a write-ahead log record written":
`DBImpl::Write` calls `log_->AddRecord`, declared in `db/log_writer.cc`; ky's connection failures:
the retry code calls `isNetworkError`, declared in `source/utils/is-network-error.ts`). The callee
may not say the question's words in its body, but its name does."""

from __future__ import annotations

import re

from monodex.indexer.points import lexical

# The first TOP source files of the fused list (one chunk each, its best) stand for the callees
# whose names share a word with the question: up to NAMES of them, the most shared words first,
# each by up to DEFINERS declarations in another file, which gain WEIGHT x the caller's fused
# score (join the candidates with it when neither list ranked them). Set on the tune halves of the
# hand-written sets (docs/benchmarks.md, 2026-12-06, sixteenth stop).
TOP = 2
NAMES = 6
DEFINERS = 2
WEIGHT = 0.3
READ = 64  # declarations read for one caller's names, the surest kept
# A name declared in more files than this (the caller's own counted) is no one place: each of
# hashbrown's collections wraps `try_reserve`, and lifting two of the three by their order in the
# store put a wrapper over the file the question asks for, in one search of five.
PLACES = 2

# `name(` of a call or a declaration (the caller's own declarations are in its file: skipped)
_CALL = re.compile(r"\b([A-Za-z_$][\w$]{3,})\s*\(")
# words that take a parenthesis in some language and are no function of the repository's
_KEYWORDS = frozenset(
    "if for while switch return sizeof typeof catch function elif assert print println when match "
    "defined decltype static_assert alignof".split()
)


def question_words(text: str) -> set[str]:
    """The question's terms and their base forms (`written` -> `write`, `records` -> `record`)."""
    words: set[str] = set()
    for term in lexical.query_terms(text):
        words.add(term)
        words.update(lexical.forms_of(term))
    return words


def called(text: str, words: set[str]) -> list[str]:
    """The names `text` calls that share a word with the question, the most shared first (then in
    the order they are called), at most NAMES: `AddRecord` for "record", not `Unlock`."""
    scored: list[tuple[int, int, str]] = []
    for order, name in enumerate(dict.fromkeys(_CALL.findall(text))):
        if name.lower() in _KEYWORDS:
            continue
        shared = len({t for t in lexical.terms(name) if len(t) > 2} & words)
        if shared:
            scored.append((-shared, order, name))
    return [name for _, _, name in sorted(scored)[:NAMES]]
