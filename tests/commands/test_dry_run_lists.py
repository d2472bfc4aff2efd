"""`crawl --dry-run` says what would be indexed, and why each other file is not (issue 15)."""

from __future__ import annotations

DRY = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run")


def test_dry_run_lists_files_with_strategy_and_skipped_files_with_reason(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    monorepo.write("assets/logo.ts", b"\x00\x01binary")
    monorepo.commit("a binary file with a source suffix")
    code, plan, err = run_json(*DRY, "--json")
    assert code == 0, err
    files = {f["path"]: f for f in plan["files"]}
    assert set(files) == {
        "README.md",
        "libraries/config/src/ConfigLoader.ts",
        "libraries/net/src/retry.ts",
        "libraries/terminal/src/colors.ts",
        # config is indexed too (issue 23): manifests and rush.json
        "package.json",
        "rush.json",
        "libraries/config/package.json",
        "libraries/net/package.json",
        "libraries/terminal/package.json",
    }
    assert files["README.md"]["strategy"] == "markdown" and files["README.md"]["chunks"] >= 1
    assert sum(f["chunks"] for f in plan["files"]) == plan["chunks"]
    why = {s["path"]: s["reason"] for s in plan["skipped_files"]}
    assert why["libraries/terminal/node_modules/dep/index.ts"] == "folder node_modules/"
    assert why["assets/logo.ts"] == "binary"
    assert len(why) == sum(plan["skipped"].values())

    code, text, _ = run_json(*DRY)
    assert "libraries/net/src/retry.ts" not in text  # counts only by default
    code, text, _ = run_json(*DRY, "--files")
    assert "  typescript  libraries/net/src/retry.ts" in text
    assert "  skipped (binary)  assets/logo.ts" in text
    code, text, _ = run_json("-v", *DRY)
    assert "skipped (folder node_modules/)  libraries/terminal/node_modules/dep/index.ts" in text


def test_files_without_dry_run_is_a_usage_error(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--files")
    assert code == 2 and "--dry-run" in err
