"""A policy that extends the built-in one and names the folders to crawl (`roots`): the rest of a
large monorepo stays out with its reason, the built-in rules still apply inside the roots, and a
label gains the rest when the roots go."""

from __future__ import annotations

import json

POLICY = {"version": 1, "extends": "built-in", "roots": ["libraries"], "patternsToExclude": ["drafts/"]}
FILES = {
    "monodex-crawl.json": json.dumps(POLICY),
    "rush.json": '{"projects": []}\n',
    "libraries/core/package.json": '{"name": "@acme/core"}\n',
    "libraries/core/src/retry.ts": "export function retryWithBackoff(attempts: number): number {\n"
    "  return attempts * 2;\n}\n",
    "libraries/core/drafts/idea.md": "# An idea\n\nRetry later.\n",
    "libraries/core/node_modules/dep/index.ts": "export const dep = 1;\n",
    "libraries-old/core/src/retry.ts": "export function retryOnce(): number {\n  return 1;\n}\n",
    "apps/web/src/checkout.ts": "export function renderCheckoutPage(cart: string[]): string {\n"
    "  return cart.join(', ');\n}\n",
}
DRY = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "--files", "--json")
CRAWL = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
SEARCH = ("search", "--catalog", "acme", "--label", "main", "--limit", "10", "--json", "--text")


def test_roots_limit_the_crawl_and_the_built_in_rules_still_apply(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES, name="acme")
    assert run_json("catalog", "add", "acme", str(repo.path))[0] == 0
    code, plan, err = run_json(*DRY)
    assert code == 0, err
    assert {f["path"] for f in plan["files"]} == {
        "libraries/core/package.json",
        "libraries/core/src/retry.ts",
    }
    assert plan["policy"] == {"source": str(repo.path / "monodex-crawl.json"), "roots": ["libraries/"]}
    assert plan["skipped"]["outside roots"] == 4
    why = {s["path"]: s["reason"] for s in plan["skipped_files"]}
    assert why == {
        "monodex-crawl.json": "outside roots",
        "rush.json": "outside roots",
        "libraries-old/core/src/retry.ts": "outside roots",  # a root is a folder, not a prefix
        "apps/web/src/checkout.ts": "outside roots",
        "libraries/core/drafts/idea.md": "folder drafts/",  # the policy's own pattern
        "libraries/core/node_modules/dep/index.ts": "vendored: node_modules/",  # the built-in's
    }
    code, out, err = run_json(*DRY[:-1])  # the text names the policy and its roots
    assert code == 0, err
    assert f"policy {repo.path / 'monodex-crawl.json'}, roots libraries/" in out
    code, summary, err = run_json(*CRAWL)
    assert code == 0, err
    code, found, err = run_json(*SEARCH, "render the checkout page")
    assert code == 0, err
    assert {r["relative_path"] for r in found["results"]} <= {
        "libraries/core/src/retry.ts",
        "libraries/core/package.json",
    }

    # the roots gone, the next crawl indexes the rest of the repository
    (repo.path / "monodex-crawl.json").write_text(json.dumps({"version": 1, "extends": "built-in"}))
    code, summary, err = run_json(*CRAWL)
    assert code == 0, err
    code, found, err = run_json(*SEARCH, "render the checkout page")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "apps/web/src/checkout.ts"

    # and back: the files outside the roots leave the label
    (repo.path / "monodex-crawl.json").write_text(json.dumps(POLICY))
    code, summary, err = run_json(*CRAWL)
    assert code == 0, err
    code, found, err = run_json(*SEARCH, "render the checkout page")
    assert code == 0, err
    assert "apps/web/src/checkout.ts" not in {r["relative_path"] for r in found["results"]}
    code, listed, err = run_json("view", "--catalog", "acme", "--label", "main", "--json", "--path", "rush.json")
    assert code == 2 and "rush.json" in err  # not in the label any more
