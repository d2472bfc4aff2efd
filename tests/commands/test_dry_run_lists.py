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
    assert why["libraries/terminal/node_modules/dep/index.ts"] == "vendored: node_modules/"
    assert why["assets/logo.ts"] == "binary"
    assert len(why) == sum(plan["skipped"].values())

    code, text, _ = run_json(*DRY)
    assert "libraries/net/src/retry.ts" not in text  # counts only by default
    code, text, _ = run_json(*DRY, "--files")
    assert "  typescript  libraries/net/src/retry.ts" in text
    assert "  skipped (binary)  assets/logo.ts" in text
    code, text, _ = run_json("-v", *DRY)
    assert "skipped (vendored: node_modules/)  libraries/terminal/node_modules/dep/index.ts" in text


def test_files_without_dry_run_is_a_usage_error(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--files")
    assert code == 2 and "--dry-run" in err


def test_a_dry_run_in_a_repository_not_registered_yet_shows_what_would_be_indexed(  # type: ignore[no-untyped-def]
    git_repo, run_json, monkeypatch
) -> None:
    """What would monodex index here? asked before registering anything: no catalog, no
    --commit (HEAD), standing in the repository. A real crawl there still needs the catalog."""
    from monodex.disk import paths
    from monodex.settings import config

    repo = git_repo(
        {
            "rush.json": '{"projects": []}\n',
            "src/app.ts": "export const app = 1;\n",
            "docker/Dockerfile": "FROM node:20\nRUN npm ci\n",
            "db/schema.sql": "CREATE TABLE users (id int);\n",
            "LICENSE": "MIT License\n",
        },
        name="Acme+Web",
    )
    monkeypatch.chdir(repo.path / "src")
    code, plan, err = run_json("crawl", "--dry-run", "--json")
    assert code == 0, err
    assert {f["path"] for f in plan["files"]} == {
        "rush.json",
        "src/app.ts",
        "docker/Dockerfile",
        "db/schema.sql",
    }
    assert plan["unregistered"] == str(repo.path)
    assert {s["path"]: s["reason"] for s in plan["skipped_files"]} == {"LICENSE": "no file type for LICENSE"}
    code, text, _ = run_json("crawl", "--dry-run")
    assert code == 0 and f"monodex catalog add acme-web {repo.path}" in text
    assert config.load(paths.resolve()).catalogs == {}  # a dry run registers nothing
    code, _, err = run_json("crawl", "--label", "main")
    assert code == 2 and "monodex catalog add" in err


def test_a_crawl_without_commit_indexes_head_where_you_stand(monorepo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(monorepo.path)
    code, result, err = run_json("crawl", "--no-wait-dense", "--json")
    assert code == 0, err
    assert result["catalog"] == "acme" and result["commit"] == monorepo.head()
    code, plan, err = run_json("crawl", "--dry-run", "--json")
    assert code == 0 and "unregistered" not in plan and plan["files_to_index"] == result["files_total"]


def test_a_dry_run_in_a_checkout_of_express_lists_lib_as_indexed_and_names_every_skip(  # type: ignore[no-untyped-def]
    git_repo, run_json, monkeypatch
) -> None:
    """Issue 34's must-show: `monodex crawl --dry-run` in a checkout of expressjs/express lists
    `lib/*.js` as indexed; what is left out says which rule left it out."""
    repo = git_repo(
        {
            "package.json": '{"name": "express"}',
            "index.js": "module.exports = require('./lib/express');\n",
            "lib/express.js": "exports = module.exports = createApplication;\n",
            "lib/application.js": "var app = exports = module.exports = {};\n",
            "examples/mvc/lib/boot.js": "module.exports = function (parent) {};\n",
            ".gitattributes": "benchmarks/*.json linguist-generated\n",
            "benchmarks/results.json": '{"ops": 1}\n',
            "node_modules/qs/index.js": "module.exports = {};\n",
            "docs/gen.go": "// Code generated by stringer. DO NOT EDIT.\npackage docs\n",
            "package-lock.json": '{"lockfileVersion": 3}\n',
        },
        name="express",
    )
    monkeypatch.chdir(repo.path)
    code, plan, err = run_json("crawl", "--dry-run", "--json")
    assert code == 0, err
    indexed = {f["path"] for f in plan["files"]}
    assert {"lib/express.js", "lib/application.js", "examples/mvc/lib/boot.js"} <= indexed
    assert {s["path"]: s["reason"] for s in plan["skipped_files"]} == {
        ".gitattributes": "no file type for .gitattributes",
        "benchmarks/results.json": "generated: .gitattributes linguist-generated",
        "node_modules/qs/index.js": "vendored: node_modules/",
        "docs/gen.go": 'generated: header "Code generated ... DO NOT EDIT"',
        "package-lock.json": "lock file: package-lock.json",
    }
    code, text, _ = run_json("crawl", "--dry-run", "--files")
    assert "  javascript  lib/express.js" in text
    assert "  skipped (generated: .gitattributes linguist-generated): 1" in text
    assert "  skipped (lock file: package-lock.json)  package-lock.json" in text


def test_a_script_without_a_suffix_is_indexed_by_its_first_line(git_repo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: ripgrep's `benchsuite/benchsuite` (Python) and tauri's `bundle_dmg` (bash) have
    no suffix; their `#!` line says what they are. A LICENSE has none; Gradle's wrapper is the
    same in every project."""
    repo = git_repo(
        {
            "benchsuite/benchsuite": "#!/usr/bin/env python3\n\ndef main():\n    pass\n",
            "tooling/bundler/bundle_dmg": "#!/usr/bin/env bash\nset -e\necho dmg\n",
            "bin/pn": "#!/usr/bin/env node\nrequire('../dist/pnpm.cjs')\n",
            "LICENSE": "MIT License\n",
            "gradlew": "#!/bin/sh\nexec java -jar gradle/wrapper/gradle-wrapper.jar\n",
            "src/app.ts": "export const app = 1;\n",
            # husky writes hooks without a `#!` line (pnpm's); a file named `update` is no hook here
            ".husky/commit-msg": 'pnpm commitlint --edit "$1"\n',
            "tools/update": "update the tools with care\n",
        },
        name="scripts",
    )
    monkeypatch.chdir(repo.path)
    code, plan, err = run_json("crawl", "--dry-run", "--json")
    assert code == 0, err
    files = {f["path"]: f["strategy"] for f in plan["files"]}
    assert files == {
        "benchsuite/benchsuite": "script",
        "tooling/bundler/bundle_dmg": "script",
        "bin/pn": "script",
        "src/app.ts": "typescript",
        ".husky/commit-msg": "script",
    }
    why = {s["path"]: s["reason"] for s in plan["skipped_files"]}
    assert why == {
        "LICENSE": "no file type for LICENSE",
        "gradlew": "generated: gradlew",
        "tools/update": "no file type for update",
    }
    assert sum(plan["skipped"].values()) == 3
    chunked_as = {f["path"]: f.get("chunked_as") for f in plan["files"]}
    assert chunked_as == {
        "benchsuite/benchsuite": "python",
        "tooling/bundler/bundle_dmg": "bash",
        "bin/pn": "javascript",
        ".husky/commit-msg": "bash",
        "src/app.ts": None,
    }
    code, text, _ = run_json("crawl", "--dry-run", "--files")
    assert code == 0 and "  script (python)  benchsuite/benchsuite" in text
    assert "  typescript  src/app.ts" in text


def test_the_dry_run_says_which_headers_are_cpp(git_repo, monkeypatch, run_json) -> None:  # type: ignore[no-untyped-def]
    """A `.h` file is listed with its `header` strategy and the language it was read as."""
    repo = git_repo(
        {
            "db/version_edit.h": "namespace leveldb {\nclass VersionEdit {\n public:\n  void Clear();\n};\n}\n",
            "include/uv.h": '#ifdef __cplusplus\nextern "C" {\n#endif\nint uv_run(void* loop);\n',
            "src/uv.c": "int uv_run(void* loop) {\n  return 0;\n}\n",
        },
        name="headers",
    )
    monkeypatch.chdir(repo.path)
    code, plan, err = run_json("crawl", "--dry-run", "--json")
    assert code == 0, err
    assert {f["path"]: (f["strategy"], f.get("chunked_as")) for f in plan["files"]} == {
        "db/version_edit.h": ("header", "cpp"),
        "include/uv.h": ("header", "c"),
        "src/uv.c": ("c", None),
    }
    code, text, _ = run_json("crawl", "--dry-run", "--files")
    assert code == 0 and "  header (cpp)  db/version_edit.h" in text
