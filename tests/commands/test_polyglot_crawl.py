"""A crawl policy naming the new strategies (issue 23) indexes Rust, Python, JavaScript and config
through the real CLI: the chunks carry their qualified symbols, and a file reads back whole."""

from __future__ import annotations

import json

from tests.indexer.chunkers.configs import CARGO_TOML, rush_json
from tests.indexer.chunkers.polyglot import JAVASCRIPT, PYTHON, RUST

POLICY = {
    "version": 1,
    "fileTypes": {".rs": "rust", ".py": "python", ".js": "javascript", ".json": "json", ".toml": "toml"},
    "patternsToExclude": ["target/"],
    "patternsToKeep": [],
}
FILES = {
    "monodex-crawl.json": json.dumps(POLICY),
    "rush.json": rush_json(),
    "crates/build/Cargo.toml": CARGO_TOML,
    "crates/build/src/package.rs": RUST,
    "crates/build/target/debug/build.rs": "fn main() {}\n",
    "tools/workspace.py": PYTHON,
    "scripts/run-scripts.js": JAVASCRIPT,
}


def test_a_polyglot_repository_is_crawled_with_its_symbols(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES, name="acme")
    assert run_json("catalog", "add", "acme", str(repo.path))[0] == 0
    dry = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "--json")
    code, plan, err = run_json(*dry)
    assert code == 0, err
    # rush.json and the policy file itself; target/ is excluded
    assert plan["by_strategy"] == {"json": 2, "toml": 1, "rust": 1, "python": 1, "javascript": 1}
    code, summary, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"
    )
    assert code == 0, err
    assert summary["files_total"] == 6

    code, found, err = run_json(
        "search", "--catalog", "acme", "--label", "main", "--text", "enable a feature of the package",
        "--limit", "5", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert "crates/build/src/package.rs" in {r["relative_path"] for r in found["results"]}
    view = ("view", "--catalog", "acme", "--label", "main", "--json", "--path")
    code, viewed, err = run_json(*view, "tools/workspace.py")
    assert code == 0, err
    crumbs = {c["breadcrumb"] for c in viewed["chunks"]}
    assert {"acme:workspace.py:Workspace.load", "acme:workspace.py:resolve_all"} <= crumbs
    code, viewed, err = run_json(*view, "rush.json")
    assert code == 0, err
    assert "".join(c["text"] for c in viewed["chunks"]) == rush_json()
    assert "acme:rush.json:projects" in {c["breadcrumb"] for c in viewed["chunks"]}
