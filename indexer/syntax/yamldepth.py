"""How deep a YAML file nests, counted from its indentation before any parser sees it.

tree-sitter-yaml 0.7's scanner keeps a stack of indentation levels and crashes the process
(SIGSEGV) past about 250 of them: measured here, 255 nested mappings one space apart, or 255
`- ` on one line, kill the interpreter (250 parse). A file nesting that deep is no hand-written
config: it is chunked by lines instead (marked `fallback-split`), never parsed.
"""

from __future__ import annotations

import re

SAFE_DEPTH = 200
_OPENER = re.compile(r"[-?:](?: +|$)")  # `- `, `? `, `: ` at a line's start open a level there


def too_deep(text: str) -> bool:
    """More than SAFE_DEPTH nested levels, stacked as the scanner stacks them: a line pushes its
    column and each block marker it starts with; a shallower line pops the deeper levels."""
    stack: list[int] = []
    for line in text.split("\n"):
        content = line.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        column = len(line) - len(content)
        while stack and stack[-1] > column:
            stack.pop()
        levels, pos = [column], 0
        while match := _OPENER.match(content, pos):  # `- - - v`: three levels on one line
            pos = match.end()
            levels.append(column + pos)
        stack += [level for level in levels if not stack or level > stack[-1]]
        if len(stack) > SAFE_DEPTH:
            return True
    return False
