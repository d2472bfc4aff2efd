"""Chunkers by strategy name (the crawl policy's vocabulary): an explicit registry.

Each chunker satisfies the `Chunker` protocol (`name`, `version`, `chunk`): the modules
typescript, markdown and linebased themselves, one code.SyntaxChunker per other language, and
shebang.ScriptChunker, which hands a script to the one its `#!` line names, and header.HeaderChunker,
which hands a `.h` file to the C or the C++ one.
"""

from __future__ import annotations

from monodex.indexer.chunkers import code, header, linebased, markdown, shebang, typescript
from monodex.indexer.chunkers.base import Chunk, Chunker, FileContext
from monodex.indexer.chunkers.pieces import fit

from monodex.errors import UsageError

CHUNKERS: dict[str, Chunker] = {
    "typescript": typescript,
    "markdown": markdown,
    "lineBased": linebased,
    "javascript": code.JAVASCRIPT,
    **code.LANGUAGES,  # python, rust, go, java, kotlin, swift, c, cpp, csharp, bash
    **code.CONFIG,  # json, toml, yaml
}
CHUNKERS[shebang.NAME] = shebang.ScriptChunker(dict(CHUNKERS))
CHUNKERS[header.NAME] = header.HeaderChunker(dict(CHUNKERS))
_IDS = {
    "typescript": "typescript-partitioner",
    "markdown": "markdown-sections",
    "lineBased": "line-windows",
    **{name: f"{name}-partitioner" for name in ("javascript", *code.LANGUAGES)},
    **{name: f"{name}-keys" for name in code.CONFIG},
    shebang.NAME: "script-shebang",
    header.NAME: "c-header",
}


def budget_for(max_tokens: int) -> int:
    """Chunk budget in UTF-8 bytes for a model's token limit: TypeScript runs ~3.3 bytes per
    token, less 5% headroom; capped at the original's 6000 (an 8192-token model)."""
    return min(6000, int(max_tokens * 3.3 * 0.95))


# What a stored chunk point carries besides the chunk: 2 = the `path_prefixes` and `lang`
# payloads and the sparse `lexical` vector; 3 = the `defines` payload (points/defined.py). Part of
# chunker_id, so points of an older format never serve a label crawled now (a refresh re-stores
# them; unchanged vectors are copied, nothing is embedded again).
POINT_FORMAT = 3
LEXICAL_FORMAT = 2  # the first format with lexical vectors and path/language fields


# How every chunker keeps to the budget, bumped when that changes: 1 = no chunk exceeds it (a
# longer line is cut into pieces), whitespace joins a neighbour only within it, and TypeScript
# nesting past a depth or a work allowance splits by lines (issue 12: hostile files).
LIMITS = 1


def chunker_id(strategy: str, budget: int) -> str:
    """Part of file identity (`typescript-partitioner:v3:budget=802:limits=1:points=2`): changes
    whenever a chunker's output for the same input can change, the budget and point format included."""
    chunker = _get(strategy)
    return f"{_IDS[chunker.name]}:{chunker.version}:budget={budget}:limits={LIMITS}:points={POINT_FORMAT}"


def id_names() -> dict[str, str]:
    """The first part of each chunker id (`typescript-partitioner`) -> its strategy name."""
    return {prefix: name for name, prefix in _IDS.items()}


def _get(strategy: str) -> Chunker:
    try:
        return CHUNKERS[strategy]
    except KeyError:
        raise UsageError(
            f"unknown chunking strategy {strategy!r}", f"use one of {', '.join(CHUNKERS)}"
        ) from None


def chosen(strategy: str, text: str, relative_path: str) -> str | None:
    """The strategy that chunks a file of a strategy that hands each file to another by its text
    (a script's `#!` line, a header's C++), else None."""
    if strategy == shebang.NAME:
        return shebang.strategy_of(text, relative_path)
    return header.written_in(text) if strategy == header.NAME else None


def lang_chosen(strategy: str, text: str, relative_path: str) -> str | None:
    """The `lang` payload of such a file (its suffix does not say it), else None."""
    if strategy == shebang.NAME:
        return shebang.script_lang(text, relative_path)
    return header.written_in(text) if strategy == header.NAME else None


def chunk_file(strategy: str, text: str, ctx: FileContext) -> list[Chunk]:
    """The chunks of one file; they tile it (joined, they are `text`) and none is over the budget.
    Empty for blank text."""
    return fit(_get(strategy).chunk(text, ctx), ctx.budget)
