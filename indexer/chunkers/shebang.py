"""A script without a suffix, chunked as the language its `#!` line names.

ripgrep's `benchsuite/benchsuite` is 1,313 lines of Python, tauri-bundler's `bundle_dmg` 638 of
bash, pnpm's `pn` a Node.js launcher: people write them and ask about them, and only their first
line says what they are. The crawl policy's `"#!": "script"` file type plans them; the reader
leaves out a file of that strategy whose text opens without `#!` (a `LICENSE`, an `AUTHORS`)
unless it is named as a git hook (husky writes `.husky/commit-msg` without one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from monodex.indexer.chunkers.base import Delegating

from monodex.schema.languages import is_git_hook

NAME = "script"
# The interpreter's name (without a version: python3.12 is python) -> the strategy that chunks its
# scripts; any other (ruby, perl, just) reads by lines.
_BY_INTERPRETER = {
    **dict.fromkeys(("python", "pypy"), "python"),
    **dict.fromkeys(("sh", "bash", "zsh", "ksh", "dash", "ash", "bsh", "mksh"), "bash"),
    **dict.fromkeys(("node", "nodejs"), "javascript"),
    **dict.fromkeys(("deno", "bun", "ts-node", "tsx"), "typescript"),
}
DELEGATES = ("python", "bash", "javascript", "typescript", "lineBased")
# The `lang` payload (`--lang`) of a script each delegate chunks: the suffix table's names.
LANGS = {"python": "python", "bash": "shell", "javascript": "javascript", "typescript": "typescript"}
_VERSION = re.compile(r"[\d.]+$")


def interpreter(text: str) -> str | None:
    """The program a `#!` line runs, without its folder or version (`python` for
    `#!/usr/bin/env -S python3 -u`), or None without such a line."""
    if not text.startswith("#!"):
        return None
    words = text[2 : text.find("\n") if "\n" in text else len(text)].split()
    if words and words[0].rsplit("/", 1)[-1] == "env":
        # env's options (`-S`, `-i`) and assignments (`NODE_OPTIONS=...`) come before the program
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    return _VERSION.sub("", program) or program


def strategy_of(text: str, path: str = "") -> str:
    """The strategy that chunks a script: by its interpreter; a git hook without one is a shell
    script (husky's); else by lines."""
    program = interpreter(text)
    if program is None:
        return "bash" if is_git_hook(path) else "lineBased"
    return _BY_INTERPRETER.get(program, "lineBased")


def script_lang(text: str, path: str = "") -> str:
    """The `lang` payload of a script (`text` when read by lines)."""
    return LANGS.get(strategy_of(text, path), "text")


@dataclass(frozen=True)
class ScriptChunker(Delegating):
    """The `script` strategy: the delegate its `#!` line names chunks it."""

    name: str = NAME
    ORDER: ClassVar[tuple[str, ...]] = DELEGATES

    def choose(self, text: str, relative_path: str) -> str:
        return strategy_of(text, relative_path)
