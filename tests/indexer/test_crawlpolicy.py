from __future__ import annotations

import json
from pathlib import Path

import pytest
from monodex.indexer import crawlpolicy
from monodex.indexer.crawlpolicy import BUILTIN, parse

from monodex import paths
from monodex.errors import UsageError

SEED_TABLE = [
    ("src/utils.test.ts", True),  # keep beats exclude
    ("lib/utils.test.ts", False),
    ("libraries/x/src/utils.test.ts", True),
    ("libraries/x/lib/utils.ts", False),
    ("node_modules/x/index.ts", False),
    ("pkg/src/node_modules/y.ts", True),  # keep wins even here (the original's rule)
    ("a/b.js", False),
    ("docs/README.md", True),
    ("common/temp/x.ts", False),
    ("x.snap", False),
    ("apps/web/src/App.tsx", True),
    ("apps/web/App.test.tsx", False),
    ("common/config/rush/pnpm-lock.yaml", False),
    ("config/rush.yaml", True),
    ("src/x.TS", False),  # case-sensitive
]


@pytest.mark.parametrize(("path", "crawled"), SEED_TABLE)
def test_seed_table(path: str, crawled: bool) -> None:
    assert parse(BUILTIN, "built-in").should_crawl(path) is crawled


def _policy(**over: object) -> dict[str, object]:
    return {
        "version": 1,
        "fileTypes": {".ts": "typescript"},
        "patternsToExclude": [],
        "patternsToKeep": [],
        **over,
    }


def test_longest_suffix_and_globs() -> None:
    p = parse(
        _policy(
            fileTypes={".ts": "typescript", ".d.ts": "lineBased"},
            patternsToExclude=["**/gen-*.ts", "tools/{a,b}/*", "x?.ts", "[0-9]*.ts"],
        ),
        "t",
    )
    assert p.strategy_for("a/b.d.ts") == "lineBased" and p.strategy_for("a/b.ts") == "typescript"
    assert not p.should_crawl("deep/er/gen-api.ts") and not p.should_crawl("gen-api.ts")
    assert not p.should_crawl("tools/a/deep/x.ts") and p.should_crawl("tools/c/x.ts")
    assert not p.should_crawl("x1.ts") and not p.should_crawl("9lives.ts") and p.should_crawl("lives.ts")


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({"version": 1}, "fileTypes: is required"),
        (_policy(version=2), "unsupported version 2"),
        (_policy(extra=True), "unknown field 'extra'"),
        (_policy(fileTypes={"ts": "typescript"}), "must start with '.'"),
        (_policy(fileTypes={".ts": "rust"}), "unknown strategy 'rust'"),
        (_policy(patternsToExclude="lib/"), "expected a list"),
        (_policy(patternsToKeep=[3]), "expected a string"),
        (_policy(patternsToExclude=["src/[abc"]), "unclosed '['"),
        (_policy(patternsToExclude=["{a,b"]), "unclosed '{'"),
        (_policy(maxFileBytes=0), "must be at least 1"),
    ],
)
def test_validation_errors(raw: dict[str, object], needle: str) -> None:
    with pytest.raises(UsageError) as info:
        parse(raw, "monodex-crawl.json")
    assert needle in info.value.problem and "monodex-crawl.json" in info.value.problem


def test_exactly_one_source_repo_then_user_then_builtin(tmp_path: Path) -> None:
    p = paths.resolve()
    assert crawlpolicy.load(tmp_path, p).source == "built-in"
    p.user_crawl_file.parent.mkdir(parents=True, exist_ok=True)
    p.user_crawl_file.write_text(json.dumps(_policy()))
    assert crawlpolicy.load(tmp_path, p).source == str(p.user_crawl_file)
    (tmp_path / "monodex-crawl.json").write_text(json.dumps(_policy(fileTypes={".md": "markdown"})))
    repo_policy = crawlpolicy.load(tmp_path, p)
    assert repo_policy.source.endswith("monodex-crawl.json") and repo_policy.strategy_for("a.ts") is None
    assert repo_policy.fingerprint != crawlpolicy.load(tmp_path / "nowhere", p).fingerprint
