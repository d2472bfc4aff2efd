"""The names a documentation page spells as code, for the search to fetch their declarations: a
guide answers a question in its words ("avoid a re-render when a selector returns a new object")
and names the API that does it (`useShallow`), which the file declaring it may not say in any
words of the question."""

from __future__ import annotations

import re

# A prose page among the fused list's first TOP hits stands for what it names: up to NAMES code
# spans of its matching chunk, each by up to DEFINERS of its surest declarations, which gain WEIGHT
# x the page's fused score (join the candidates with it when neither list ranked them).
TOP = 3
NAMES = 4
DEFINERS = 1
WEIGHT = 0.25

# `useShallow`, `useShallow()`, `store.setState`, `Config.from_envvar`: the last name of each
_CODE_SPAN = re.compile(r"`([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)(?:\(\))?`")
# a language's words, not a declaration a page could point at
_WORDS = frozenset(
    "true false null nil none undefined self this string number object boolean bool int float "
    "void async await return const let var function class import export default new".split()
)


def names_in(text: str) -> list[str]:
    """The distinct names the text spells in code spans, in their order, language words left out."""
    out: list[str] = []
    for m in _CODE_SPAN.finditer(text):
        name = re.split(r"\.|::", m.group(1))[-1]
        if len(name) >= 3 and name.lower() not in _WORDS and name not in out:
            out.append(name)
    return out
