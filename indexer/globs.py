"""Glob patterns as globset reads them by default: `*` also crosses `/` (the original's semantics)."""

from __future__ import annotations

import re
from functools import lru_cache


class GlobError(ValueError):
    pass


@lru_cache(maxsize=1024)
def compile_glob(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i, depth = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "*":
            start = i
            while i + 1 < len(pattern) and pattern[i + 1] == "*":
                i += 1
            at_folder_start = start == 0 or pattern[start - 1] == "/"
            if i > start and at_folder_start and pattern[i + 1 : i + 2] == "/":
                out.append("(?:.*/)?")  # `**/` also matches zero folders
                i += 1
            else:
                out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                raise GlobError(f"unclosed '[' in {pattern!r}")
            body = pattern[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
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
        return re.compile("^" + "".join(out) + "$")
    except re.error as exc:
        raise GlobError(f"invalid glob {pattern!r}: {exc}") from exc
