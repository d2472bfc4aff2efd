"""bench/lexical_constants.py: its client-side copy of the lexical search answers as the store does
with today's constants (else every variant it measures is measured against the wrong baseline),
and other constants change the answer."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest
from monodex.indexer.points import lexical, payloads
from monodex.indexer.store.base import Filter, Match, Point
from monodex.indexer.store.edge import EdgeStore

CHUNKS = [
    (
        "libraries/node-core-library/src/JsonFile.ts",
        "JsonFile.load",
        "load(jsonFilename: string) { return JSON.parse(FileSystem.readFile(jsonFilename)); }",
    ),
    (
        "libraries/node-core-library/src/JsonFile.ts",
        "JsonFile.save",
        "save(jsonObject: JsonObject, jsonFilename: string) { FileSystem.writeFile(jsonFilename, JSON.stringify(jsonObject)); }",
    ),
    (
        "libraries/node-core-library/src/FileSystem.ts",
        "FileSystem.readFile",
        "readFile(filePath: string): string { return fs.readFileSync(filePath, 'utf8'); }",
    ),
    (
        "libraries/node-core-library/src/FileSystem.ts",
        "FileSystem.writeFile",
        "writeFile(filePath: string, contents: string) { fs.writeFileSync(filePath, contents); }",
    ),
    (
        "libraries/rush-lib/src/api/RushConfiguration.ts",
        "RushConfiguration.loadFromConfigurationFile",
        "static loadFromConfigurationFile(rushJsonFilename: string) { const rushJson = JsonFile.load(rushJsonFilename); return new RushConfiguration(rushJson); } "
        * 3,
    ),
    (
        "libraries/rush-lib/src/logic/Git.ts",
        "Git.getBranch",
        "getBranch(): string { return this._executeGit(['rev-parse', '--abbrev-ref', 'HEAD']); }",
    ),
    ("README.md", None, "Load a JSON file with comments, validate it against a schema, save it back."),
    (
        "libraries/terminal/src/Terminal.ts",
        "Terminal.writeLine",
        "writeLine(...messages: string[]) { this._write(messages.join('') + '\\n'); }",
    ),
]


@pytest.fixture
def bench(bench_script: Callable[[str], ModuleType]) -> ModuleType:
    return bench_script("lexical_constants.py")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[EdgeStore]:
    s = EdgeStore(tmp_path, "monodex")
    s.ensure_collection(dim=4, embedder_id="e")
    points = []
    for i, (path, symbol, text) in enumerate(CHUNKS):
        payload = {
            "catalog": "acme",
            "active_label_ids": ["acme:main"],
            "relative_path": path,
            "package_name": path.split("/")[1] if path.startswith("libraries/") else "",
            "symbol_name": symbol,
            "chunk_type": "method" if symbol else None,
            "chunk_kind": "content",
            "text": text,
        }
        embedded = payloads.stored_embed_text(payload)
        points.append(
            Point(
                str(uuid.UUID(int=i + 1)),
                payload,
                [1.0, float(i), 0.5, 0.0],
                lexical.document_vector(embedded),
            )
        )
    s.upsert(points)
    yield s
    s.close()


QUERIES = ["load a json file", "write a file", "git branch", "rush configuration json", "terminal line"]


def test_the_copy_answers_as_the_store_with_todays_constants(bench: ModuleType, store: EdgeStore) -> None:
    flt = Filter(must=(Match("catalog", "acme"),))
    store_search = EdgeStore.search_sparse
    for text in QUERIES:
        vector = lexical.query_vector(text, base_forms=True)
        want = store.search_sparse(vector, flt, limit=5)
        with bench.constants(*bench.VARIANTS["today"]):
            got = store.search_sparse(vector, flt, limit=5)
        assert want, text
        assert [h.id for h in got] == [h.id for h in want], text
        assert [round(h.score, 3) for h in got] == pytest.approx([round(h.score, 3) for h in want], rel=1e-3)
    assert EdgeStore.search_sparse is store_search  # the store's own search again afterwards


def test_other_constants_change_the_scores_and_a_filter_still_holds(
    bench: ModuleType, store: EdgeStore
) -> None:
    vector = lexical.query_vector("load a json file", base_forms=True)
    only_core = Filter(must=(Match("package_name", "node-core-library"),))
    with bench.constants(*bench.VARIANTS["today"]):
        today = store.search_sparse(vector, Filter(), limit=8)
    with bench.constants(1.2, 0.0, 220.0, 1.0, 1.0):  # no length normalisation
        flat = store.search_sparse(vector, Filter(), limit=8)
        narrowed = store.search_sparse(vector, only_core, limit=8)
    long_chunk, short_chunk = str(uuid.UUID(int=5)), str(uuid.UUID(int=1))
    ratio_today = {h.id: h.score for h in today}[long_chunk] / {h.id: h.score for h in today}[short_chunk]
    ratio_flat = {h.id: h.score for h in flat}[long_chunk] / {h.id: h.score for h in flat}[short_chunk]
    assert ratio_flat > ratio_today * 1.05  # length no longer counts against the long chunk
    assert narrowed and all(h.payload["package_name"] == "node-core-library" for h in narrowed)
