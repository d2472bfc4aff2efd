"""Ranking signals end to end (issue 14): a real repository, the real model and Qdrant Edge,
the CLI's JSON. A query naming an identifier gets its definition first, not the files that
use it most; a page's translated copies take one slot, the others listed under it."""

from __future__ import annotations

import json

import pytest

DEFINITION = """/** Prefixes every line written through it with the name of its scope. */
export class ScopedLogger {
  public constructor(private readonly _scope: string) {}

  public write(line: string): void {
    process.stdout.write(`[${this._scope}] ${line}\\n`);
  }
}
"""

# Files that only use the name, many times: they out-score the definition on the name's words.
USER = """import {{ ScopedLogger }} from '../logging/ScopedLogger';

const loggers: ScopedLogger[] = [];
export function {name}(scope: string): ScopedLogger {{
  const logger: ScopedLogger = new ScopedLogger(scope);
  loggers.push(logger); // ScopedLogger instances are kept for flushing
  return logger; // a ScopedLogger for {name}
}}
"""

PAGE = """# Logging

Every command writes through a scoped logger, so each line of output names the step that
printed it. Set `logLevel` in the project configuration to choose how much is printed.
"""

FILES = {
    "package.json": json.dumps({"name": "root"}),
    "libs/core/package.json": json.dumps({"name": "@acme/core"}),
    "libs/core/src/logging/ScopedLogger.ts": DEFINITION,
    "libs/core/src/build/buildLoggers.ts": USER.format(name="buildLoggers"),
    "libs/core/src/install/installLoggers.ts": USER.format(name="installLoggers"),
    "libs/core/src/publish/publishLoggers.ts": USER.format(name="publishLoggers"),
    "website/docs/guide/logging.md": PAGE,
    "website/i18n/zh-cn/docusaurus-plugin-content-docs/current/guide/logging.md": PAGE,
    "website/i18n/ja/docusaurus-plugin-content-docs/current/guide/logging.md": PAGE,
}
SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json")


@pytest.fixture
def crawled(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files(FILES)


def test_the_definition_of_a_named_identifier_comes_before_its_uses(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, found, err = run_json(*SEARCH, "--text", "ScopedLogger drops the scope", "--explain")
    assert code == 0, err
    first = found["results"][0]
    assert first["relative_path"] == "libs/core/src/logging/ScopedLogger.ts"
    moved = {m["signal"]: m for m in first["explain"]["signals"]}
    assert moved["definition"]["why"] == "defines ScopedLogger, which the query names"
    assert moved["definition"]["change"] > 0


def test_translated_copies_of_a_page_take_one_slot(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, found, err = run_json(
        *SEARCH, "--text", "set logLevel in the project configuration to choose how much is printed"
    )
    assert code == 0, err
    pages = [r for r in found["results"] if r["relative_path"].endswith("guide/logging.md")]
    assert len(pages) == 1, [r["relative_path"] for r in found["results"]]
    copies = {pages[0]["relative_path"], *pages[0]["also"]}
    assert copies == {p for p in FILES if p.endswith("guide/logging.md")}
    # a docs page is moved down, never dropped: a question only it answers still finds it
    assert found["results"][0]["relative_path"].endswith("guide/logging.md")


def test_the_text_output_says_what_each_signal_did(crawled, capsys) -> None:  # type: ignore[no-untyped-def]
    from monodex.main import main

    capsys.readouterr()
    argv = ["search", "--catalog", "acme", "--label", "main", "--explain"]
    assert main([*argv, "--text", "ScopedLogger drops the scope"]) == 0
    out = capsys.readouterr().out
    assert "definition +" in out and "(defines ScopedLogger, which the query names)" in out
    assert (
        main([*argv, "--text", "set logLevel in the project configuration to choose how much is printed"])
        == 0
    )
    out = capsys.readouterr().out
    assert "also in other languages: website/i18n/" in out
    assert "docs -" in out and "(a prose page, not code)" in out


# A name every collection wraps: three files declare try_reserve, none of them says why it fails.
RESERVE_ERRORS = """// The errors a reservation reports: the capacity overflowed, or the allocator failed.
export class ReserveError extends Error {
  static capacityOverflow(): ReserveError {
    return new ReserveError("capacity overflow: the requested capacity does not fit");
  }
  static allocationFailure(bytes: number): ReserveError {
    return new ReserveError(`allocation failure: could not allocate ${bytes} bytes`);
  }
}
"""
WRAPPER = """import {{ table }} from './raw';

// Reserves room for `additional` more entries of the {kind}: see try_reserve of the raw table.
export function try_reserve(additional: number): void {{
  table.try_reserve(additional);
}}
"""


def test_a_name_many_files_declare_lifts_none_of_them(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    wrappers = {f"src/{kind}.ts": WRAPPER.format(kind=kind) for kind in ("map", "set", "table")}
    crawl_files({"src/raw.ts": RESERVE_ERRORS, **wrappers})
    question = "where are capacity overflow and allocation failure errors from try_reserve produced"
    code, found, err = run_json(*SEARCH, "--text", question, "--explain")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "src/raw.ts", [r["relative_path"] for r in found["results"]]
    signals = {m["signal"] for r in found["results"] for m in r["explain"]["signals"]}
    assert "definition" not in signals
    # nor do the wrappers lift each other as what a matching file calls (two of three, picked by
    # their order in the store, put one over src/raw.ts in one run of five)
    assert "call-names" not in signals
