"""tree-sitter and its grammars: the one importer of both.

Grammars are separate MIT-licensed wheels, one per language, imported on first use, so a crawl of
TypeScript loads no Kotlin. Each is pinned to a minor release in pyproject.toml: node type names
change between grammar releases, and the vocabularies (tsnodes, languages, keys) name them.
"""

from __future__ import annotations

import importlib
import threading
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


_buffers = threading.local()


class _Source:
    """The parse's read callback, which serves every `node.text` afterwards too (8 KiB a read:
    returning the rest of the file copied it once per symbol name, quadratic: 4.1 s of 6 s for
    20,000 nested objects; 8 KiB parses as fast).

    While parsing, what it returns is always the same buffer (one per thread): tree-sitter
    0.26.1's parser never releases a read callback's return value (parser_read_wrapper keeps a
    reference after PyObject_GetBuffer), so a new slice per read kept every file's text for the
    life of the process (a crawl's worker grew ~6 MB per 1,000 files). The wrapper releases its
    view of the last read before it asks for the next, so the buffer is free to refill. After
    the parse, node.text gets bytes (0.26.1 reads them as bytes, and releases them)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.parsing = True

    def __call__(self, offset: int, _point: object) -> bytes | bytearray:
        piece = self.data[offset : offset + 8192]
        if not self.parsing:
            return piece
        buf: bytearray | None = getattr(_buffers, "buf", None)
        if buf is None:
            buf = _buffers.buf = bytearray()
        buf[:] = piece
        return buf


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
    parser, source = _parser(grammar), _Source(data)
    try:
        tree = parser.parse(source, progress_callback=lambda _offset, _has_error: time.monotonic() > deadline)
    except (ValueError, RuntimeError):  # cancelled ("Parsing failed"): fall back to line windows
        parser.reset()  # else the next parse would resume this one
        return None
    finally:
        source.parsing = False
    return tree.root_node
