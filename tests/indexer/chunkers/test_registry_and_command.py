"""The registry, budgets and ids, file kinds, line windows, and `monodex chunk`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest
from monodex.indexer.chunkers import CHUNKERS, budget_for, chunk_file, chunker_id
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.policy import crawlpolicy

from monodex.commands import chunk as chunk_cmd
from monodex.errors import UsageError


def test_registry_budget_and_chunker_id() -> None:
    code = {"javascript", "python", "rust", "go", "java", "kotlin", "swift", "c", "cpp", "csharp", "bash"}
    others = {"typescript", "markdown", "lineBased", "json", "toml", "yaml", "script", "header"}
    assert set(CHUNKERS) == others | code
    assert all(CHUNKERS[k].name == k and CHUNKERS[k].version for k in CHUNKERS)
    assert budget_for(256) == 802 and budget_for(8192) == 6000 and budget_for(512) == 1605
    assert chunker_id("typescript", 802) == "typescript-partitioner:v3:budget=802:limits=1:points=3"
    assert chunker_id("typescript", 6000) != chunker_id("typescript", 802)
    assert len({chunker_id(s, 802) for s in CHUNKERS}) == len(CHUNKERS)
    assert chunker_id("python", 802) == "python-partitioner:v2:budget=802:limits=1:points=3"
    assert chunker_id("json", 802) == "json-keys:v2:budget=802:limits=1:points=3"
    with pytest.raises(UsageError):
        chunk_file("cobol", "x", FileContext("a.cob", "", 802))
    with pytest.raises(UsageError):
        chunker_id("cobol", 802)


@pytest.mark.parametrize(
    ("path", "strategy", "kind"),
    [
        ("CHANGELOG.md", "markdown", "changelog"),
        ("libraries/x/CHANGELOG.json", "lineBased", "changelog"),
        ("changelog.txt", "lineBased", "changelog"),
        ("config/rush.yaml", "lineBased", "config"),
        ("a/b.yml", "lineBased", "config"),
        ("package.json", "lineBased", "config"),
        ("tsconfig.base.json", "lineBased", "config"),
        ("tsconfig-web", "lineBased", "config"),
        ("common/config/.npmrc", "lineBased", "config"),
        ("pyproject.toml", "lineBased", "config"),
        ("setup.ini", "lineBased", "config"),
        ("src/a.css", "lineBased", "content"),
        ("README.txt", "lineBased", "content"),
        ("src/config.ts", "typescript", "content"),
        ("docs/a.json.md", "markdown", "content"),
    ],
)
def test_file_kinds(path: str, strategy: str, kind: str) -> None:
    assert file_kind(path, strategy) == kind
    text = "# x\nline one\n" if strategy != "typescript" else "export const x = 1;\n"
    assert {c.chunk_kind for c in chunk_file(strategy, text, FileContext(path, "", 802))} == {kind}


def test_every_strategy_can_be_named_in_a_crawl_policy() -> None:
    """The policy's room may not import the chunkers: its list of names is kept equal here."""
    assert set(crawlpolicy.STRATEGIES) == set(CHUNKERS)
    policy = crawlpolicy.parse({**crawlpolicy.BUILTIN, "fileTypes": {".rs": "rust", ".json": "json"}}, "t")
    assert policy.strategy_for("crates/a/src/lib.rs") == "rust"
    with pytest.raises(UsageError, match="unknown strategy 'cobol'"):
        crawlpolicy.parse({**crawlpolicy.BUILTIN, "fileTypes": {".cob": "cobol"}}, "t")


def test_line_windows_fill_the_budget_greedily() -> None:
    text = "".join(f"key{i}: value number {i}\n" for i in range(100))  # 23-25 bytes a line
    chunks = chunk_file("lineBased", text, FileContext("conf/a.yaml", "@s/p", 200))
    assert "".join(c.text for c in chunks) == text
    assert all(180 <= len(c.text) <= 200 for c in chunks[:-1])
    assert {(c.chunk_type, c.breadcrumb, c.symbol_name) for c in chunks} == {("text", "%40s/p:a.yaml", None)}


def _args(path: Path, **over: object) -> argparse.Namespace:
    values: dict[str, object] = dict(
        path=str(path), strategy=None, max_tokens=256, budget=None, package=None, json=True
    )
    values.update(over)
    return argparse.Namespace(**values)


def test_chunk_command_prints_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "@scope/pkg"}))
    f = tmp_path / "JsonFile.ts"
    f.write_bytes(
        b"".join(b"export function f%d(): number {\r\n  return %d;\r\n}\r\n" % (i, i) for i in range(60))
    )
    assert chunk_cmd.run(_args(f)) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["strategy"], out["chunker_id"]) == (
        "typescript",
        "typescript-partitioner:v3:budget=802:limits=1:points=3",
    )
    first = out["chunks"][0]
    assert set(first) >= {"chunk_ordinal", "start_line", "end_line", "bytes", "symbol_name"}
    assert set(first) >= {"chunk_type", "chunk_kind", "breadcrumb", "text"}
    assert first["breadcrumb"].startswith("%40scope/pkg:JsonFile.ts") and first["chunk_ordinal"] == 1
    assert "".join(c["text"] for c in out["chunks"]).encode() == f.read_bytes()
    assert chunk_cmd.run(_args(f, budget=6000, package="", strategy="lineBased")) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["chunker_id"] == "line-windows:v2:budget=6000:limits=1:points=3"
        and out["chunks"][0]["breadcrumb"] == "JsonFile.ts"
    )


def test_chunk_command_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "guide.md"
    f.write_text("# Guide\n\nHello.\n")
    assert chunk_cmd.run(_args(f, json=False, package="docs")) == 0
    out = capsys.readouterr().out
    assert "#1 lines 1-3" in out and "docs:guide.md:guide" in out and "> Hello." in out


@pytest.mark.parametrize(
    ("name", "data", "over"),
    [
        ("missing.ts", None, {}),
        ("bin.ts", b"\x00\x01\x02", {}),
        ("latin1.txt", "caf\u00e9".encode("latin-1"), {}),
        ("a.ts", b"x", {"strategy": "cobol"}),
        ("a.ts", b"x", {"budget": 3}),
    ],
)
def test_chunk_command_usage_errors(
    tmp_path: Path, name: str, data: bytes | None, over: dict[str, object]
) -> None:
    if data is not None:
        (tmp_path / name).write_bytes(data)
    with pytest.raises(UsageError):
        chunk_cmd.run(_args(tmp_path / name, **over))


def test_chunk_command_options_have_help() -> None:
    parser = argparse.ArgumentParser()
    chunk_cmd.add_arguments(parser)
    assert all(a.help for a in parser._actions if a.dest != "help")
    assert parser.parse_args(["x.ts", "--budget", "900"]).budget == 900
    assert chunk_cmd.__doc__ and chunk_cmd.__doc__.splitlines()[0]


@pytest.mark.parametrize(
    ("name", "strategy"),
    [
        ("lib.rs", "rust"),
        ("rush.json", "json"),
        ("ci.yml", "yaml"),
        ("a.min.mjs", "javascript"),
        ("x.d.ts", "typescript"),
    ],
)
def test_chunk_command_picks_the_strategy_by_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, strategy: str
) -> None:
    f = tmp_path / name
    f.write_text("x = 1\n")
    assert chunk_cmd.run(_args(f)) == 0
    assert json.loads(capsys.readouterr().out)["strategy"] == strategy
