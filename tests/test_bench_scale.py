"""bench/scale.py's synthetic monorepo shares no chunk between its copies yet chunks like its source,
and bench/_common.py's --record appends to the right table of docs/benchmarks.md."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from monodex.indexer import chunkers
from monodex.indexer.chunkers.base import FileContext

BENCH = Path(__file__).resolve().parents[1] / "bench"
TS = """import { readFile } from 'fs';

export class ConfigLoader {
  private readonly cache: Map<string, string> = new Map();

  public async loadConfig(path: string): Promise<string> {
    const cached = this.cache.get(path);
    if (cached !== undefined) {
      return cached;
    }
    const text = await readFileAsync(path);
    this.cache.set(path, text);
    return text;
  }
}
"""


def _bench(monkeypatch: pytest.MonkeyPatch, name: str) -> ModuleType:
    # A bench script puts bench/ on sys.path and imports its siblings (_common, labels, embed):
    # all undone after the test, so none of them shadows a module of the other tests.
    monkeypatch.setattr("sys.path", [str(BENCH), *sys.path])
    for sibling in ("_common", "embed", "labels", "quality"):
        monkeypatch.setitem(sys.modules, sibling, None)  # undone last: the key ends as it was
        monkeypatch.delitem(sys.modules, sibling)
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_copies_rename_identifiers_apart_and_keep_keywords_binaries_and_attributes(
    git_repo: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    scale = _bench(monkeypatch, "scale")
    source = git_repo(
        {
            "libs/config/src/loader.ts": TS,
            "libs/config/package.json": '{"name": "@acme/config-loader"}\n',
            "logo.png": b"\x89PNG\0\0binary",
            ".gitattributes": "generated/** linguist-generated\n",
        }
    )
    files = scale.source_files(source.path)
    repo = scale.new_repo(tmp_path / "synthetic", scale.replicated(files, 10))  # 3 copies, the last cut
    tree = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD"], capture_output=True, text=True
    ).stdout.split()
    assert len(tree) == 10 and {p.split("/")[1] for p in tree} == {"copy-000", "copy-001", "copy-002"}

    def show(path: str) -> bytes:
        return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True).stdout

    first, second = (show(f"packages/copy-00{k}/libs/config/src/loader.ts").decode() for k in (0, 1))
    assert "class ConfigLoaderQa " in first and "loadConfigQb(path: string)" in second
    assert "private readonly cache" in first and "public async" in second  # keywords, short names
    assert show("packages/copy-001/logo.png") == b"\x89PNG\0\0binary"
    assert show("packages/copy-001/.gitattributes") == b"generated/** linguist-generated\n"
    assert b'"@acme/configQb-loaderQb"' in show("packages/copy-001/libs/config/package.json")
    ctx = FileContext("src/loader.ts", "p", 300)  # a small budget: several chunks
    pieces = [chunkers.chunk_file("typescript", text, ctx) for text in (TS, first, second)]
    assert len({len(p) for p in pieces}) == 1 and len(pieces[0]) > 1  # chunked alike
    assert [(c.symbol_name or "").replace("Qa", "") for c in pieces[1]] == [
        c.symbol_name or "" for c in pieces[0]
    ]
    assert not {c.text for c in pieces[1]} & {c.text for c in pieces[2]}  # no chunk shared


def test_record_appends_to_the_table_under_its_heading(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    common = _bench(monkeypatch, "_common")
    doc = tmp_path / "benchmarks.md"
    doc.write_text(
        "# B\n\n## One (issue 1)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n## Two\n\n| c | d |\n|---|---|\n"
    )
    common.record("## One", [["3", "4"]], results=doc)
    common.record("## Two", [["5", 6], ["7", 8]], results=doc)
    assert doc.read_text() == (
        "# B\n\n## One (issue 1)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n"
        "## Two\n\n| c | d |\n|---|---|\n| 5 | 6 |\n| 7 | 8 |\n"
    )
    with pytest.raises(SystemExit, match="no section '## Three'"):
        common.record("## Three", [["1", "2"]], results=doc)
    with pytest.raises(SystemExit, match="a row of 3 cells for a table of 2 columns"):
        common.record("## Two", [["1", "2", "3"]], results=doc)
