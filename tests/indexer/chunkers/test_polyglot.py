"""Syntax-aware chunking beyond TypeScript (issue 23): every language tiles its file, names its
chunks by qualified symbols, and keeps the TypeScript partitioner's bounds on hostile input."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from monodex.indexer.chunkers import CHUNKERS, chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.lines import Lines
from monodex.indexer.chunkers.tssplit import SizeBudget

from tests.indexer.chunkers.configs import CONFIGS
from tests.indexer.chunkers.polyglot import SOURCES

Tiles = Callable[[str, list[Chunk], int], None]

# Symbols each sample must name at a 300-byte budget (the realistic 802 makes fewer, larger chunks).
SYMBOLS = {
    "python": {"Workspace", "Workspace.load", "Workspace.path_of", "Workspace.Cache", "resolve_all"},
    "rust": {"impl Package", "impl Package.enable", "impl Display for Package", "Resolver", "workspace"},
    "go": {"Server.Publish", "Server.ServeHTTP"},
    "java": {"TaskScheduler", "TaskScheduler.schedule", "TaskScheduler.visit"},
    "kotlin": {"SettingsRepository", "SettingsRepository.setTheme"},
    "swift": {"ImageLoader.load", "ImageLoader.clear"},
    "c": {"buffer", "buffer_grow", "buffer_append", "buffer_free"},
    "cpp": {"native.StringList.Init", "native.StringList.Push", "Count"},
    "csharp": {"WarningReport", "WarningReport.Add"},
    "bash": {"build_all", "publish_changed"},
    "javascript": {"ScriptRunner", "ScriptRunner.run", "handlers", "main"},
}


def _chunks(lang: str, budget: int) -> tuple[str, list[Chunk]]:
    path, text = SOURCES[lang]
    return text, chunk_file(lang, text, FileContext(path, "pkg", budget))


@pytest.mark.parametrize("lang", sorted({**SOURCES, **CONFIGS}))
@pytest.mark.parametrize("budget", [120, 300, 802, 6000])
def test_every_language_tiles_its_file(lang: str, budget: int, tiles: Tiles) -> None:
    path, text = {**SOURCES, **CONFIGS}[lang]
    tiles(text, chunk_file(lang, text, FileContext(path, "pkg", budget)), budget)


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_chunks_are_named_by_qualified_symbols(lang: str) -> None:
    _, chunks = _chunks(lang, 300)
    assert SYMBOLS[lang] <= {c.symbol_name for c in chunks}
    file_name = SOURCES[lang][0].rsplit("/", 1)[1]
    for c in chunks:
        assert c.breadcrumb.startswith(f"pkg:{file_name}")
        if c.symbol_name:
            assert c.breadcrumb.split(":")[2].replace("%20", " ") == c.symbol_name
            assert c.chunk_type != "code"


def test_breadcrumbs_read_like_the_languages_own_paths() -> None:
    crumbs = {c.breadcrumb for lang in ("rust", "python", "go") for c in _chunks(lang, 300)[1]}
    assert "pkg:package.rs:impl%20Package.enable" in crumbs  # separators percent-encoded, as ever
    assert "pkg:workspace.py:Workspace.load" in crumbs
    assert "pkg:server.go:Server.Publish" in crumbs


@pytest.mark.parametrize(("lang", "last_import"), [("java", 5), ("kotlin", 5), ("csharp", 3)])
def test_the_leading_import_block_is_a_chunk_of_kind_imports(lang: str, last_import: int) -> None:
    _, chunks = _chunks(lang, 300)
    assert chunks[0].chunk_kind == "imports" and chunks[0].end_line == last_import
    assert {c.chunk_kind for c in chunks[1:]} == {"content"}


def test_a_module_docstring_does_not_end_python_s_import_block() -> None:
    imports = "".join(f"import mod{i}\n" for i in range(8))
    steps = "".join(
        f"def release_step_{i}(version, folder):\n    '''Run step {i} of the release.'''\n"
        f"    path = os.path.join(folder, 'step-{i}')\n    if not os.path.exists(path):\n"
        f"        os.makedirs(path)\n    return mod{i % 8}.run(version, path)\n\n"
        for i in range(6)
    )
    text = '"""Tools for the release scripts."""\n\n' + imports + "\n" + steps
    chunks = chunk_file("python", text, FileContext("tools.py", "pkg", 300))
    assert (chunks[0].chunk_kind, chunks[0].end_line) == ("imports", 10)
    assert [c.symbol_name for c in chunks[1:]] == [f"release_step_{i}" for i in range(6)]


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_realistic_samples_split_on_syntax_without_falling_back(lang: str) -> None:
    for budget in (300, 802):
        _, chunks = _chunks(lang, budget)
        assert not [c for c in chunks if c.breadcrumb.endswith(":[fallback-split]")], (lang, budget)


@pytest.mark.parametrize("lang", sorted(SOURCES))
def test_realistic_files_stay_far_from_the_work_allowance(lang: str) -> None:
    path, text = SOURCES[lang]
    text = text * 20  # ~20-30 KB (repeated headers make some of it invalid: still bounded)
    budget = SizeBudget.of(802)
    chunker = CHUNKERS[lang]
    tree = chunker.parse(text, path, budget)  # type: ignore[attr-defined]
    assert tree is not None and tree.allowance is not None
    from monodex.indexer.chunkers.partition import partition

    ranges = partition(tree, Lines.of(text), budget)
    assert tree.work * 4 < tree.allowance, (lang, tree.work, tree.allowance)
    assert len(ranges) > 20


def test_invalid_syntax_still_tiles_and_is_named_where_it_can_be(tiles: Tiles) -> None:
    broken = SOURCES["rust"][1].replace("impl Package {", "impl Package {{{ (((").replace("fn fmt", "fn )")
    chunks = chunk_file("rust", broken, FileContext("src/lib.rs", "crate", 300))
    tiles(broken, chunks, 300)
    junk = "def (((:\n\t]]] \x00 class\r\n" * 2000
    tiles(junk, chunk_file("python", junk, FileContext("x.py", "", 802)), 802)
