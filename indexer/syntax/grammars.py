"""tree-sitter and its grammars: the one importer of both.

Grammars are separate MIT-licensed wheels, one per language, imported on first use, so a crawl of
TypeScript loads no Kotlin. Each is pinned to a minor release in pyproject.toml: node type names
change between grammar releases, and the vocabularies (tsnodes, languages, keys) name them.
"""

from __future__ import annotations

import importlib
import time
from functools import cache
from typing import Any

from monodex.indexer.syntax import yamldepth
from tree_sitter import Language, Parser

# grammar name -> (module, function returning the language pointer)
GRAMMARS: dict[str, tuple[str, str]] = {
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "javascript": ("tree_sitter_javascript", "language"),
    "python": ("tree_sitter_python", "language"),
    "rust": ("tree_sitter_rust", "language"),
    "go": ("tree_sitter_go", "language"),
    "java": ("tree_sitter_java", "language"),
    "kotlin": ("tree_sitter_kotlin", "language"),
    "swift": ("tree_sitter_swift", "language"),
    "c": ("tree_sitter_c", "language"),
    "cpp": ("tree_sitter_cpp", "language"),
    "csharp": ("tree_sitter_c_sharp", "language"),
    "bash": ("tree_sitter_bash", "language"),
    "json": ("tree_sitter_json", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
}


@cache
def _parser(grammar: str) -> Parser:
    """One parser per grammar for the whole process (creating one costs more than a small parse)."""
    module, function = GRAMMARS[grammar]
    return Parser(Language(getattr(importlib.import_module(module), function)()))


def parse(data: bytes, grammar: str) -> Any | None:
    """The root node of `data` parsed with `grammar`, or None when the parse was cancelled or
    the input would crash the grammar (YAML nested past its scanner's limit: yamldepth.py)."""
    if grammar == "yaml" and yamldepth.too_deep(data.decode("utf-8", "replace")):
        return None
    # tree-sitter's error recovery can run away: 8 lines of CRLF junk with a NUL byte made the TSX
    # grammar parse for minutes while growing to gigabytes. A progress callback cancels it (it is
    # only honoured with a read callback, which measured no slower). Parsing measured ~13 MB/s
    # (270 KB in 0.02 s), so this deadline only ever stops a runaway.
    deadline = time.monotonic() + 1.0 + len(data) / 200_000
    # The read callback also serves every `node.text` later: returning the rest of the file copied
    # it once per symbol name (quadratic: 4.1 s of 6 s for 20,000 nested objects). 8 KiB a read
    # parses as fast.
    parser = _parser(grammar)
    try:
        tree = parser.parse(
            lambda offset, _point: data[offset : offset + 8192],
            progress_callback=lambda _offset, _has_error: time.monotonic() > deadline,
        )
    except (ValueError, RuntimeError):  # cancelled ("Parsing failed"): fall back to line windows
        parser.reset()  # else the next parse would resume this one
        return None
    return tree.root_node
