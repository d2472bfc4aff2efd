"""`monodex chunk` shows what the index stores (issue 35): in a Cargo workspace under a root
package.json, and in a napi crate (Cargo.toml and package.json side by side), the package of
every chunk is the one the crawl gave the file, because both take it from one rule."""

from __future__ import annotations

import json

from monodex.main import main

APP_RS = """use std::collections::HashMap;

/// Counts how often each word occurs in a text.
pub fn word_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}
"""
LIB_RS = """use napi_derive::napi;

/// Exposes the word counter to Node.js through napi.
#[napi]
pub fn count_words(text: String) -> u32 {
    text.split_whitespace().count() as u32
}
"""
INDEX_TS = """/** Loads the native binding of the CLI. */
export function loadBinding(): unknown {
  return require('./cli.node');
}
"""
WORKSPACE = {
    "package.json": json.dumps({"name": "hx-workspace", "private": True}),
    "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
    "crates/hx/Cargo.toml": '[package]\nname = "hx"\nversion = "0.1.0"\n',
    "crates/hx/src/app.rs": APP_RS,
    "crates/cli-node/Cargo.toml": '[package]\nname = "hx-cli-node"\nversion = "0.1.0"\n',
    "crates/cli-node/package.json": json.dumps({"name": "@hx/cli"}),
    "crates/cli-node/src/lib.rs": LIB_RS,
    "crates/cli-node/index.ts": INDEX_TS,
    "crates/cli-node/Cargo.toml.orig": "kept out of the crawl: no file type",
}
EXPECTED = {
    "crates/hx/src/app.rs": "hx",  # the crate, not the workspace's package.json
    "crates/cli-node/src/lib.rs": "hx-cli-node",  # a .rs file takes its Cargo.toml
    "crates/cli-node/index.ts": "@hx/cli",  # a .ts file beside it takes its package.json
    "Cargo.toml": "hx-workspace",  # a bare [workspace] names nothing
}


def test_chunk_shows_the_package_and_breadcrumbs_the_index_stores(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(WORKSPACE, name="hx")
    assert main(["catalog", "add", "hx", str(repo.path)]) == 0
    code, _, err = run_json("crawl", "--catalog", "hx", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    for rel, package in EXPECTED.items():
        code, shown, err = run_json("chunk", str(repo.path / rel), "--json")
        assert code == 0, err
        code, stored, err = run_json("view", "--catalog", "hx", "--label", "main", "--path", rel, "--json")
        assert code == 0, err
        assert (shown["relative_path"], shown["package_name"]) == (rel, package)
        assert stored["package_name"] == package, rel
        assert [(c["start_line"], c["end_line"], c["breadcrumb"]) for c in shown["chunks"]] == [
            (c["start_line"], c["end_line"], c["breadcrumb"]) for c in stored["chunks"]
        ], rel
    code, text, _ = run_json("chunk", str(repo.path / "crates/hx/src/app.rs"))
    assert code == 0 and "  hx:app.rs:word_counts" in text and "hx-workspace" not in text


def test_chunk_in_an_unregistered_repository_names_it_as_a_dry_run_would(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"tools/build.py": "def build():\n    return 1\n"}, name="tooling")
    code, shown, err = run_json("chunk", str(repo.path / "tools/build.py"), "--json")
    assert code == 0, err
    assert (shown["relative_path"], shown["package_name"]) == ("tools/build.py", repo.path.name)
    code, shown, _ = run_json("chunk", str(repo.path / "tools/build.py"), "--package", "mine", "--json")
    assert shown["package_name"] == "mine" and shown["chunks"][0]["breadcrumb"].startswith("mine:build.py")
