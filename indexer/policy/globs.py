"""Glob patterns as globset reads them by default: `*` and `?` also cross `/` (the original's semantics).

Supported: `*`, `**` (`**/` also matches no folder), `?`, `[abc]`, `[a-z]`, `[!x]`/`[^x]`,
`{a,b}` (nestable) and `\\x` (a literal x). Compiled patterns are cached.
"""

from __future__ import annotations

import re
from functools import lru_cache


class GlobError(ValueError):
    pass


def _star(pattern: str, i: int, out: list[str]) -> int:
    start = i
    while i + 1 < len(pattern) and pattern[i + 1] == "*":
        i += 1
    at_folder_start = start == 0 or pattern[start - 1] == "/"
    if i > start and at_folder_start and pattern[i + 1 : i + 2] == "/":
        out.append("(?:.*/)?")  # `**/` also matches zero folders
        return i + 1
    out.append(".*")
    return i


def _char_class(pattern: str, i: int, out: list[str]) -> int:
    end = pattern.find("]", i + 2)  # a `]` right after `[` is a member, as in glob(7)
    if end < 0:
        raise GlobError(f"unclosed '[' in {pattern!r}")
    body = pattern[i + 1 : end]
    negate = body[:1] in ("!", "^")
    members = "".join(ch if ch == "-" else re.escape(ch) for ch in body[negate:])
    out.append(f"[{'^' if negate else ''}{members}]")
    return end


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, depth = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            i = _star(pattern, i, out)
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            i = _char_class(pattern, i, out)
        elif ch == "\\":
            if i + 1 == len(pattern):
                raise GlobError(f"dangling '\\' at the end of {pattern!r}")
            i += 1
            out.append(re.escape(pattern[i]))
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}":
            if depth == 0:
                raise GlobError(f"unmatched '}}' in {pattern!r}")
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(ch))
        i += 1
    if depth:
        raise GlobError(f"unclosed '{{' in {pattern!r}")
    try:
        return re.compile("^" + "".join(out) + "$", re.DOTALL)
    except re.error as exc:  # e.g. a reversed range [z-a]
        raise GlobError(f"invalid glob {pattern!r}: {exc}") from exc
