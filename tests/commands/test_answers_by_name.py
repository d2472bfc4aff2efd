"""The answer a question names (issue 34), end to end on a real index: a bare symbol finds the
file that defines it however many files use the name (or however short the name is), a CI
question finds the pipeline, a dependency update finds the manifests that declare it, and a hit's
rank does not depend on --limit (issue 35)."""

from __future__ import annotations

import json

import pytest
from monodex.indexer.points import defined
from monodex.indexer.question import query
from monodex.indexer.read import joined
from monodex.indexer.read import search as searching
from monodex.indexer.session import Session
from monodex.indexer.store.base import Match

from monodex.disk import paths
from monodex.settings import config

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json")

# gin's `H`: a one-letter type every handler uses; no lexical term can find it (words of one
# letter are no terms) and the model ranks a one-letter question anywhere.
UTILS = """package gin

// H is a shortcut for map[string]any
type H map[string]any

func filterFlags(content string) string {
\treturn content
}
"""
HANDLER = """package gin

// handler{n} answers the {n}th route with a JSON body built from a map.
func handler{n}(c *Context) {{
\tc.JSON(200, H{{"route": {n}, "ok": true, "items": []H{{{{"id": {n}}}}}}})
}}
"""


def _go_repo() -> dict[str, str]:
    files = {"go.mod": "module github.com/acme/gin\n", "utils.go": UTILS}
    # files of several chunks each: with a pool that grew with --limit, the chunks of a file
    # found past the 50th hit added to its evidence only at the larger limits
    files |= {
        f"routes/handler{n}.go": HANDLER.format(n=n)
        + "".join(HANDLER.format(n=f"{n}x{k}")[11:] for k in range(n % 4))
        for n in range(60)
    }
    return files


def test_a_bare_symbol_finds_the_file_that_defines_it(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_go_repo())
    code, found, err = run_json(*SEARCH, "--text", "H", "--limit", "5", "--explain")
    assert code == 0, err
    first = found["results"][0]
    assert first["relative_path"] == "utils.go", [r["relative_path"] for r in found["results"]]
    moved = {m["signal"]: m for m in first["explain"]["signals"]}
    assert moved["definition"]["why"] == "defines H, the name the query asks for"


# A name declared in many places (`Option` in every package of a Go monorepo, nlohmann/json's
# `value_t` aliased in every class): the index lists its declarations in an order of its own, and
# the one in the file named after it must be among those the search reads, whatever that order.
OPTION = """package pkg{n}

// Option configures the pkg{n} client.
type Option func(*Config)

type Config struct {{ retries{n} int }}

// WithRetries{n} is an Option; New{n} applies each Option, then the default Option.
func New{n}(opts ...Option) *Config {{
	c := &Config{{}}
	for _, o := range opts {{ o(c) }}
	return c
}}
"""


@pytest.mark.parametrize("text", ["type H", "the H struct", "H"])
def test_a_name_with_its_kind_is_the_name(crawl_files, run_json, text: str) -> None:  # type: ignore[no-untyped-def]
    """ "type H", "the Router class", "fn spawn": a name and the kind of thing it is, asked as the
    bare name is; read as a phrase, the definition of `H` was nowhere among 60 files using it."""
    crawl_files(_go_repo())
    code, found, err = run_json(*SEARCH, "--text", text, "--limit", "5")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "utils.go", [r["relative_path"] for r in found["results"]]
    assert query.read(text).symbol == "H"


def test_a_name_declared_everywhere_keeps_its_own_file(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    files = {f"pkg{n}/config.go": OPTION.format(n=n) for n in range(120)}
    files["core/option.go"] = (
        "package core\n\n// Option is a setting.\ntype Option struct {\n\tName string\n}\n"
    )
    crawl_files(files)
    with Session(config.load(paths.resolve()), paths.resolve()) as s:
        scope = searching.Scope.of(s.store, (searching.require_label(s.store, "acme", "main"),))
        declared = list(s.store.scroll(scope.filter(Match(defined.DEFINES, "option")), batch=200))
        assert len(declared) == 121
        # the index's own order would read these first: the file named after it is not among them
        first = {str(r.payload["relative_path"]) for r in declared[: joined.DEFINERS]}
        assert "core/option.go" not in first
        kept = joined.definers(
            s.store, scope.filter(), query.read("Option"), searching.Ranking().signals, known=set()
        )
    paths_kept = [c.path for c in kept]
    assert len(paths_kept) == joined.DEFINERS
    assert "core/option.go" in paths_kept, paths_kept


WORKFLOW = """name: release
on:
  push:
    tags: ['v*']
jobs:
  build:
    strategy:
      matrix:
        target: [x86_64-unknown-linux-gnu, aarch64-apple-darwin]
    runs-on: ${{ matrix.os }}
    steps:
      - uses: actions/checkout@v4
      - run: cargo build --release --target ${{ matrix.target }}
"""
BUILD_RS = """/// Builds the native binary for the requested target triple.
pub fn build_target(target: &str) -> std::io::Result<()> {
    let status = std::process::Command::new("cargo").args(["build", "--release", "--target", target]).status()?;
    if !status.success() {
        return Err(std::io::Error::other(format!("build for {target} failed")));
    }
    Ok(())
}
"""


def test_a_ci_question_finds_the_pipeline(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    files = {
        "Cargo.toml": '[package]\nname = "acme"\nversion = "0.1.0"\n',
        ".github/workflows/release.yml": WORKFLOW,
        "src/build.rs": BUILD_RS,
        "src/targets.rs": '/// Every target triple a release builds.\npub const TARGETS: &[&str] = &["x86_64-unknown-linux-gnu", "aarch64-apple-darwin"];\n',
    }
    crawl_files(files)
    code, found, err = run_json(
        *SEARCH, "--text", "ci: build the release for aarch64 apple darwin", "--explain"
    )
    assert code == 0, err
    paths = [r["relative_path"] for r in found["results"]]
    assert paths[0] == ".github/workflows/release.yml", paths
    why = {m["signal"] for m in found["results"][0]["explain"]["signals"]}
    assert "pipeline" in why


# A dependency the code calls everywhere and one manifest line declares: the words of an update
# ("update dependency emnapi to v1.1.1") match every caller before the line that changes.
LOADER = """import {{ instantiate{n} }} from 'emnapi'

// Load module {n} through emnapi: emnapi instantiates the wasm module and emnapi's context
// keeps its handles; version updates of emnapi change nothing here.
export function load{n}(bytes: Uint8Array) {{
  return instantiate{n}(bytes, {{ emnapi: true }})
}}
"""
PACKAGE = """{
  "name": "@acme/cli",
  "version": "1.0.0",
  "scripts": {
    "build": "tsc && node emnapi-build.js"
  },
  "dependencies": {
    "emnapi": "^1.1.0",
    "semver": "^7.6.0"
  }
}
"""
CARGO = '[package]\nname = "acme-macro"\nversion = "0.1.0"\n\n[dependencies]\nctor = "0.2"\nquote = "1"\n'
CTOR_RS = """/// Runs at load time: ctor registers the module before main (the ctor crate's attribute).
#[ctor::ctor]
fn register{n}() {{
    // ctor ordering: ctor functions run in link order
    crate::modules::register({n});
}}
"""


def test_a_dependency_update_finds_the_manifests_that_declare_it(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    files = {"cli/package.json": PACKAGE, "crates/macro/Cargo.toml": CARGO}
    files |= {f"cli/src/load{n}.ts": LOADER.format(n=n) for n in range(60)}
    files |= {f"crates/macro/src/register{n}.rs": CTOR_RS.format(n=n) for n in range(30)}
    crawl_files(files)
    for text, manifest in (
        ("fix(deps): update dependency emnapi to v1.1.1", "cli/package.json"),
        ("fix(deps): update rust crate ctor to v1", "crates/macro/Cargo.toml"),
    ):
        code, found, err = run_json(*SEARCH, "--text", text, "--explain")
        assert code == 0, err
        first = found["results"][0]
        assert first["relative_path"] == manifest, [r["relative_path"] for r in found["results"]]
        moved = {m["signal"]: m for m in first["explain"]["signals"]}
        assert moved["dependency"]["why"].startswith("declares "), moved
    # the same words without an update: the manifest is no answer, the code is
    code, found, err = run_json(*SEARCH, "--text", "load a module through emnapi")
    assert code == 0, err
    assert found["results"][0]["relative_path"].startswith("cli/src/load")


@pytest.mark.parametrize("query", ["route handler JSON body", "filter flags", "H"])
def test_a_hits_rank_does_not_depend_on_the_limit(crawl_files, run_json, query: str) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_go_repo())
    ranked = {}
    for limit in (3, 8, 20):
        code, found, err = run_json(*SEARCH, "--text", query, "--limit", str(limit))
        assert code == 0, err
        ranked[limit] = [(r["relative_path"], r["score"]) for r in found["results"]]
    assert ranked[3] == ranked[8][:3] == ranked[20][:3]
    assert ranked[8] == ranked[20][:8], json.dumps(ranked, indent=1)


# fmt's `formatter`: declared once (`struct formatter {` in base.h), specialized in every header
# and test for one more type (`template <> struct formatter<weekday, Char> : ...`), each of which
# says the name more often than the declaration does.
PRIMARY = """#pragma once
namespace fmt {
// A formatter for objects of type T.
template <typename T, typename Char = char, typename Enable = void>
struct formatter {
  // A deleted default constructor indicates a disabled formatter.
  formatter() = delete;
};
}  // namespace fmt
"""
SPECIALIZED = """#include "base.h"
namespace fmt {{
template <typename Char> struct formatter<type{n}, Char> : formatter<int, Char> {{
  auto format(type{n} value, format_context& ctx) const -> decltype(ctx.out()) {{
    return formatter<int, Char>::format(static_cast<int>(value), ctx);  // formatter of int
  }}
}};
template <> struct fmt::formatter<other{n}> : formatter<string_view> {{}};
}}  // namespace fmt
"""


def test_a_template_is_defined_where_it_is_declared_not_where_it_is_specialized(  # type: ignore[no-untyped-def]
    crawl_files, run_json
) -> None:
    files = {"include/fmt/base.h": PRIMARY}
    files |= {f"include/fmt/part{n}.h": SPECIALIZED.format(n=n) for n in range(12)}
    files |= {f"src/use{n}.cc": SPECIALIZED.format(n=f"{n}c") for n in range(12)}
    crawl_files(files)
    code, found, err = run_json(*SEARCH, "--text", "formatter", "--limit", "5", "--explain")
    assert code == 0, err
    ranked = [r["relative_path"] for r in found["results"]]
    assert ranked[0] == "include/fmt/base.h", ranked
    lifted = [
        r["relative_path"]
        for r in found["results"]
        if any(m["signal"] == "definition" for m in r["explain"]["signals"])
    ]
    assert lifted == ["include/fmt/base.h"], lifted


# tokio's `StreamMap`: the struct is a few lines under a long doc comment, and its impl block says
# the name far more often (`StreamMap::new()` in every example), so it outscores the struct in
# both lists; the search listed the impl block's lines for the file.
def _stream_map() -> str:
    doc = "".join(
        f"/// Streams are polled in turn; round {n} of the fairness rules applies here.\n" for n in range(30)
    )
    methods = "".join(
        f"""
    /// The StreamMap's {n}th helper: a StreamMap built by StreamMap::new() returns the StreamMap.
    ///
    /// ```
    /// let mut map = StreamMap::new();
    /// map.insert("a", pending());
    /// let again: StreamMap<_, _> = StreamMap::from(map.helper{n}());
    /// assert!(StreamMap::is_empty(&again) || StreamMap::len(&again) > 0);
    /// ```
    pub fn helper{n}(&self) -> StreamMap<K, V> {{
        StreamMap {{ entries: Vec::new() }}
    }}
"""
        for n in range(8)
    )
    return (
        "//! Combine many streams into one.\n\n"
        + doc
        + "pub struct StreamMap<K, V> {\n    entries: Vec<(K, V)>,\n}\n\nimpl<K, V> StreamMap<K, V> {"
        + methods
        + "}\n"
    )


def test_a_bare_symbol_lists_its_declaration_not_an_impl_block(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    files = {"Cargo.toml": '[package]\nname = "streams"\n', "src/stream_map.rs": _stream_map()}
    files |= {
        f"src/use{n}.rs": f"use crate::stream_map::StreamMap;\n\npub fn merge{n}(m: StreamMap<u8, u8>) {{}}\n"
        for n in range(4)
    }
    crawl_files(files)
    code, found, err = run_json(*SEARCH, "--text", "StreamMap", "--limit", "3", "--explain")
    assert code == 0, err
    first = found["results"][0]
    assert first["relative_path"] == "src/stream_map.rs", [r["relative_path"] for r in found["results"]]
    # the lines listed are the declaration's, not an impl block's below it
    assert first["start_line"] <= 33 <= first["end_line"], (
        first["start_line"],
        first["end_line"],
        first["symbol_name"],
    )
