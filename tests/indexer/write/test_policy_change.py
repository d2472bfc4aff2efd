"""An index built before issue 23 (the original's built-in policy, three chunkers, no policy
recorded) gains the new files at its next refresh: incremental, only the files the new policy
adds are embedded, every TypeScript file keeps its chunks, and the label ends exactly as a fresh
full crawl makes it."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from monodex.indexer import chunkers, session
from monodex.indexer.points import identity, labelmeta
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.session import Session
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.write import crawlrun

from monodex.disk import paths
from monodex.settings import config
from monodex.settings.config import Catalog
from tests.indexer.write.test_incremental import label_state

FILES: dict[str, str | bytes] = {
    "package.json": '{"name": "acme"}',
    "rush.json": '{"projects": [{"packageName": "@acme/core", "projectFolder": "libs/core"}]}\n',
    "libs/core/package.json": '{"name": "@acme/core"}',
    "libs/core/src/index.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
    "libs/core/src/util.ts": "export const MAX_BYTES = 1;\n",
    "libs/core/README.md": "# core\n\nParses the config.\n",
    "libs/core/scripts/build.js": "module.exports = function build() {\n  return 1;\n};\n",
    "crates/native/Cargo.toml": '[package]\nname = "acme-native"\n',
    "crates/native/src/lib.rs": "pub fn parse_config() -> u32 {\n    1\n}\n",
    "crates/native/target/debug/gen.rs": "// build output\n",
    "node_modules/dep/index.ts": "export const dep = 1;\n",
    "Cargo.lock": "# lock\n",
}
NEW = {"package.json", "rush.json", "libs/core/package.json", "libs/core/scripts/build.js"}
NEW |= {"crates/native/Cargo.toml", "crates/native/src/lib.rs"}
NEW |= {"crates/native/target/debug/gen.rs"}  # tracked: source whatever its folder (issue 34)
BUILTIN_V1_FINGERPRINT = "3b59d80f72a2d13500b5bef22e75bbbc4af64664225f139d9e07d9e407eb02cb"


@pytest.fixture(scope="module")
def engine() -> Any:
    return session.engine(config.Config())


def _crawler(cat: Catalog, p: Any, engine: Any) -> Callable[..., dict[str, Any]]:
    """crawl(store, commit, **request options): label `main` of `cat` crawled into `store`."""
    cfg = config.Config(catalogs={cat.name: cat})

    def crawl(store: EdgeStore, commit: str, label: str = "main", **kw: Any) -> dict[str, Any]:
        with Session(cfg, p, store=store, engine=engine) as s:
            return crawlrun.crawl(s, crawlrun.Request(cat, label, commit, **kw)).as_json()

    return crawl



def _under_policy(
    policy: dict[str, Any], repo: Any, engine: Any, tmp_path: Any
) -> tuple[Any, Callable[..., dict[str, Any]], EdgeStore]:
    """(paths, crawler, store) of a catalog whose user policy is `policy`, as a label was
    crawled before the built-in changed; `paths.user_crawl_file.unlink()` brings today's."""
    p = paths.resolve()
    p.config_dir.mkdir(parents=True, exist_ok=True)
    p.user_crawl_file.write_text(json.dumps(policy))
    return p, _crawler(Catalog(repo.path.name, repo.path), p, engine), EdgeStore(tmp_path / "live", "monodex")

def _as_a_full_crawl_makes_it(
    crawl: Callable[..., dict[str, Any]], sha: str, label_id: str, state: dict[str, Any], tmp_path: Any
) -> None:
    """The label's chunks equal those a full crawl of `sha` writes into a new index."""
    ref = EdgeStore(tmp_path / "ref", "monodex")
    crawl(ref, sha, label_id.split(":", 1)[1], full=True)
    ignored = {"label_id", "source_uri"}
    strip = lambda st: {k: {f: x for f, x in v.items() if f not in ignored} for k, v in st.items()}  # noqa: E731
    assert strip(state) == strip(label_state(ref, label_id))
    ref.close()


def _as_before_issue_23(store: EdgeStore, engine: Any) -> None:
    """What an index crawled before this change recorded: no policy text, three chunkers."""
    state = labelmeta.read(store, "acme:main")
    assert state is not None
    ids = [engine.chunker_id(name) for name in ("lineBased", "markdown", "typescript")]
    extra = {k: v for k, v in state.extra.items() if k != "policy"}
    extra["implementation"] = ";".join([engine.embedder_id, *ids, identity.SCHEME])
    rewrite_extra(store, engine, state, extra)


def rewrite_extra(store: EdgeStore, engine: Any, state: labelmeta.LabelState, extra: dict[str, Any]) -> None:
    """acme:main's metadata as its crawl wrote it, with `extra` in place of what it recorded."""
    labelmeta.write(
        store,
        catalog="acme",
        label="main",
        dim=engine.dim,
        commit_oid=state.commit_oid,
        source_kind=state.source_kind,
        complete=True,
        now=0,
        extra=extra,
    )


def test_an_index_built_with_the_old_policy_embeds_only_the_new_files(git_repo, engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES, name="acme")
    # as the original's policy was crawled: before .gitattributes markers (its fingerprint then)
    p, crawl, live = _under_policy({**crawlpolicy.BUILTIN_V1, "gitattributes": False}, repo, engine, tmp_path)
    assert crawlpolicy.load(repo.path, p).fingerprint == BUILTIN_V1_FINGERPRINT
    first = crawl(live, repo.head())
    assert first["files_total"] == 3  # two .ts and the README: the original's policy
    _as_before_issue_23(live, engine)
    before = label_state(live, "acme:main")

    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("libs/core/src/util.ts", "export const MAX_BYTES = 2;\n")  # and one commit lands
    sha = repo.commit("bump")
    summary = crawl(live, sha)
    assert summary["mode"] == "incremental"
    assert summary["files_embedded"] == len(NEW) + 1  # the new files and the edited one
    after = label_state(live, "acme:main")
    kept = {k: v for k, v in before.items() if v["relative_path"] != "libs/core/src/util.ts"}
    assert {k: after[k] for k in kept} == kept  # untouched TypeScript and Markdown chunks
    paths_now = {v["relative_path"] for v in after.values()}
    assert NEW <= paths_now and "node_modules/dep/index.ts" not in paths_now

    _as_a_full_crawl_makes_it(crawl, sha, "acme:main", after, tmp_path)
    live.close()


def test_a_change_that_cannot_be_followed_is_a_full_crawl() -> None:
    from monodex.indexer.write import policychange

    names = chunkers.id_names()
    assert policychange.chunker_ids("e;line-windows:v1;s", names) == (
        "e",
        "s",
        {"lineBased": "line-windows:v1"},
    )
    assert policychange.chunker_ids("e;unknown-chunker:v1;s", names) is None
    new = crawlpolicy.parse(crawlpolicy.BUILTIN, "built-in")
    extra = {"policy_fingerprint": "not one we know", "implementation": "e;line-windows:v1;s"}
    assert (
        policychange.follow(extra, policy=new, implementation="e;line-windows:v1;s", names=names, paths=[])
        is None
    )
    # a policy recorded by a newer monodex, naming a strategy this one lacks (a downgrade): unknown,
    # so the refresh is a full crawl, never an error (740b5b4 failed on `"#!": "script"`)
    future = {**crawlpolicy.BUILTIN, "fileTypes": {".ts": "typescript", "#!": "a-future-chunker"}}
    extra = {"policy": json.dumps(future), "implementation": "e;line-windows:v1;s"}
    assert policychange.recorded_policy(extra) is None
    assert (
        policychange.follow(extra, policy=new, implementation="e;line-windows:v1;s", names=names, paths=[])
        is None
    )


def test_a_label_of_the_previous_built_in_policy_gains_the_other_text_files(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The built-in policy grew again (other text by lines: Dockerfile, .sql, .html ...): a label
    crawled before, which recorded its policy, adds just those files at its next refresh."""
    files = {
        "src/app.ts": "export const app = 1;\n",
        "docker/Dockerfile": "FROM node:20\nRUN npm ci\n",
        "db/schema.sql": "CREATE TABLE users (id int);\n",
        "web/index.html": "<html><body>acme</body></html>\n",
        "LICENSE": "MIT\n",
    }
    grown = {"docker/Dockerfile", "db/schema.sql", "web/index.html"}
    repo = git_repo(files, name="acme")
    p = paths.resolve()
    p.config_dir.mkdir(parents=True, exist_ok=True)
    previous = {
        k: v for k, v in crawlpolicy.BUILTIN["fileTypes"].items() if k not in ("Dockerfile", ".sql", ".html")
    }
    p.user_crawl_file.write_text(json.dumps({**crawlpolicy.BUILTIN, "fileTypes": previous}))
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})
    live = EdgeStore(tmp_path / "live", "monodex")

    def crawl(commit: str) -> dict[str, Any]:
        with Session(cfg, p, store=live, engine=engine) as s:
            return crawlrun.crawl(s, crawlrun.Request(cat, "main", commit)).as_json()

    assert crawl(repo.head())["files_total"] == 1
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("src/app.ts", "export const app = 2;\n")
    summary = crawl(repo.commit("bump"))
    assert summary["mode"] == "incremental" and summary["files_embedded"] == len(grown) + 1
    assert {v["relative_path"] for v in label_state(live, "acme:main").values()} == grown | {"src/app.ts"}
    live.close()


# The built-in policy of issues 23 to 33, which left folders out by their names (`lib/`, `dist/`,
# `target/` ...) and heeded no .gitattributes: labels crawled with it recorded this policy.
BUILTIN_V2_EXCLUDE = [
    *"node_modules/ dist/ build/ lib/ lib-commonjs/ lib-esm/ lib-esnext/ lib-amd/ lib-dts/".split(),
    *"temp/ .cache/ .rush/temp/ common/temp/ common/deploy/ common/changes/ .docusaurus/".split(),
    *".next/ .nuxt/ .turbo/ .yarn/ coverage/ __snapshots__/".split(),
    *"target/ __pycache__/ .venv/ venv/ .tox/ .mypy_cache/ .pytest_cache/ .ruff_cache/".split(),
    *"vendor/ .gradle/ Pods/ Carthage/ DerivedData/ .build/ .swiftpm/ obj/".split(),
    *"**/*.snap **/*.test.ts **/*.spec.ts **/*.test.tsx **/*.spec.tsx".split(),
    *"**/*.test.js **/*.spec.js **/*.test.mjs **/*.spec.mjs".split(),
    *"**/*.min.js **/*.min.mjs **/*.min.css **/*.bundle.js **/*.chunk.js".split(),
    *"**/*.lock **/package-lock.json **/npm-shrinkwrap.json **/pnpm-lock.yaml **/yarn.lock".split(),
    *"**/go.sum **/Package.resolved **/CHANGELOG.json **/*.tsbuildinfo".split(),
]
# File types the built-in gained after v2 (jq, shaders, autotools, ...): v2 did not know them.
NEWER_TYPES = {
    *".jq .awk .tcl .nim .cr .elm .purs .hx .gd .fs .fsi .fsx .vb .pas .adb .ads .mli".split(),
    *".hrl .cljs .cljc .edn .el .lisp .rkt .scm .pyx .pxd .f .f90 .f95 .cabal .bats".split(),
    *".s .S .asm .cu .cuh .glsl .vert .frag .comp .wgsl .hlsl .metal .sv .svh .vhd .vhdl".split(),
    *".ac .am .tex .jinja .jinja2 .j2 .erb .haml .slim .pug .mustache .twig".split(),
    *"makefile Justfile justfile meson.build BUCK Tiltfile Earthfile SConstruct SConscript".split(),
    *".inl .ipp .tpp .txx .tcc .y .yy .ypp .l .ll .lex .g4 .jison .pest .peg .lalrpop .rl .ebnf .bnf".split(),
    *".nsi .nsh .wxs .wxi .wxl .iss .rc .def .natvis .pro .podspec .modulemap .xcconfig".split(),
    *".mak .cnf .applescript .sublime-syntax .tmpl .tpl .gotmpl .ftl .vm .test .inc".split(),
    "#!",
    *"go.mod go.work .npmrc .npmrc-publish .yarnrc .prettierrc .babelrc .swcrc .postcssrc".split(),
    *".browserslistrc .nvmrc .node-version .python-version .ruby-version .tool-versions".split(),
    *".clang-format .clang-tidy .cmake-format .swiftformat .swiftlint .coveragerc .gitmodules".split(),
    ".in",
    *".vcxproj .vcproj .csproj .fsproj .vbproj .props .targets .sln .MF .topic .tutorial".split(),
}
BUILTIN_V2 = {
    **crawlpolicy.BUILTIN,
    "fileTypes": {
        **{k: v for k, v in crawlpolicy.BUILTIN["fileTypes"].items() if k not in NEWER_TYPES},
        ".h": "c",  # before headers were C or C++ by their text
    },
    "patternsToExclude": BUILTIN_V2_EXCLUDE,
    "gitattributes": False,
}
BUILTIN_V2_FINGERPRINT = "beb1bcf35d7b1493d69e757894ca4df52bcca4fc02aeb581a89bac6f24bdacc6"


# expressjs/express in small: its framework under lib/, a fixture .gitattributes marks generated
EXPRESS: dict[str, str | bytes] = {
    "package.json": '{"name": "express"}',
    "index.js": "module.exports = require('./lib/express');\n",
    "lib/express.js": "exports = module.exports = createApplication;\nfunction createApplication() {}\n",
    "lib/router/index.js": "function Router() {}\nmodule.exports = Router;\n",
    "Readme.md": "# express\n\nFast, unopinionated web framework.\n",
    "test/fixtures/users.json": '{"users": ["tobi", "loki"]}\n',
    ".gitattributes": "test/fixtures/** linguist-generated\n",
}


def test_a_label_of_the_builtin_that_left_lib_out_gains_it_at_its_next_refresh(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: a label crawled when the built-in policy left `lib/` out (expressjs/express's
    framework) adds just those files at its next refresh, reusing every other file, and drops
    the files the repository's .gitattributes marks generated; it ends as a full crawl makes it."""
    repo = git_repo(EXPRESS, name="express")
    p, crawl, live = _under_policy(BUILTIN_V2, repo, engine, tmp_path)
    assert crawlpolicy.load(repo.path, p).fingerprint == BUILTIN_V2_FINGERPRINT  # what labels recorded
    assert crawl(live, repo.head())["files_total"] == 4  # lib/ left out, the fixture in
    before = label_state(live, "express:main")
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("index.js", "module.exports = require('./lib/express.js');\n")
    sha = repo.commit("bump")
    summary = crawl(live, sha)
    assert summary["mode"] == "incremental"
    # lib/ twice and the edited index.js; the fixture and index.js's old version leave
    assert summary["files_embedded"] == 3 and summary["files_removed"] == 2
    after = label_state(live, "express:main")
    kept = {k: v for k, v in before.items() if v["relative_path"] in ("package.json", "Readme.md")}
    assert {k: after[k] for k in kept} == kept  # reused as they were
    held = {v["relative_path"] for v in after.values()}
    assert held == {"package.json", "index.js", "lib/express.js", "lib/router/index.js", "Readme.md"}

    _as_a_full_crawl_makes_it(crawl, sha, "express:main", after, tmp_path)
    live.close()


def test_a_new_branch_after_a_policy_change_stands_on_the_base_of_the_old_one(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 36: `main`, refreshed after a policy change, keeps its base (crawled under the old
    policy) and holds what the change touched in its delta. A new branch one commit further
    starts from main's membership, delta included: it reads and embeds only its own commit's
    file, where it was a full crawl of the tree (188 s at 100,000 files)."""
    repo = git_repo(EXPRESS, name="express")
    p, crawl, live = _under_policy(BUILTIN_V2, repo, engine, tmp_path)
    assert crawl(live, repo.head())["mode"] == "full"
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("index.js", "module.exports = require('./lib/express.js');\n")
    main = repo.commit("bump")
    assert crawl(live, main)["mode"] == "incremental"
    state = labelmeta.read(live, "express:main")  # its base is still the one of the old policy
    assert state is not None and state.extra["membership_changed"] == 4  # lib/ twice, index.js, the fixture

    repo.git("checkout", "-q", "-b", "feature")
    repo.write("lib/router/index.js", "function Router(options) {}\nmodule.exports = Router;\n")
    feature = repo.commit("router options")
    summary = crawl(live, feature, "feature")
    assert summary["mode"] == "derived"
    assert summary["files_embedded"] == 1  # its own commit's file; lib/ and index.js are main's
    _as_a_full_crawl_makes_it(
        crawl, feature, "express:feature", label_state(live, "express:feature"), tmp_path
    )
    # and a new label at main's own commit holds what main holds
    assert crawl(live, main, "copy")["mode"] == "derived"
    strip = lambda st: {v["relative_path"]: v["file_id"] for v in st.values()}  # noqa: E731
    assert strip(label_state(live, "express:copy")) == strip(label_state(live, "express:main"))
    live.close()


# The built-in before scripts were read by their `#!` line: names without a dot had no file type.
BUILTIN_BEFORE_SCRIPTS = {
    **crawlpolicy.BUILTIN,
    "fileTypes": {k: v for k, v in crawlpolicy.BUILTIN["fileTypes"].items() if k != "#!"},
    "patternsToExclude": [
        p for p in crawlpolicy.BUILTIN["patternsToExclude"] if "gradlew" not in p and "mvnw" not in p
    ],
}
TOOLS: dict[str, str | bytes] = {
    "package.json": '{"name": "tools"}',
    "index.js": "module.exports = 1;\n",
    "benchsuite/benchsuite": "#!/usr/bin/env python3\n\ndef run_benchmarks(names):\n    return names\n",
    "scripts/release": "#!/bin/sh -e\nnpm publish\n",
    "LICENSE": "MIT License\n\nPermission is hereby granted, free of charge\n",
    "android/gradlew": "#!/bin/sh\nexec java -classpath gradle-wrapper.jar\n",
}


def test_a_label_crawled_before_scripts_gains_them_at_its_next_refresh(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: scripts without a suffix, left out before, are added at the next refresh with
    the chunker their `#!` line names; a LICENSE and Gradle's wrapper stay out; the rest is reused."""
    repo = git_repo(TOOLS, name="tools")
    p, crawl, live = _under_policy(BUILTIN_BEFORE_SCRIPTS, repo, engine, tmp_path)
    assert crawl(live, repo.head())["files_total"] == 2
    before = label_state(live, "tools:main")
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("index.js", "module.exports = 2;\n")
    sha = repo.commit("bump")
    summary = crawl(live, sha)
    assert summary["mode"] == "incremental"
    assert summary["files_embedded"] == 3  # the two scripts and the edited index.js
    after = label_state(live, "tools:main")
    kept = {k: v for k, v in before.items() if v["relative_path"] == "package.json"}
    assert kept and {k: after[k] for k in kept} == kept  # reused as it was
    held = {v["relative_path"] for v in after.values()}
    assert held == {"package.json", "index.js", "benchsuite/benchsuite", "scripts/release"}
    by_path = {v["relative_path"]: v for v in after.values()}
    assert by_path["benchsuite/benchsuite"]["lang"] == "python"  # `--lang python` finds it
    assert by_path["scripts/release"]["lang"] == "shell"
    assert by_path["benchsuite/benchsuite"]["chunker_id"] == engine.chunker_id("script")
    assert "runbenchmarks" in by_path["benchsuite/benchsuite"]["defines"]  # its definitions count

    _as_a_full_crawl_makes_it(crawl, sha, "tools:main", after, tmp_path)
    live.close()


# The built-in before `.h` files were read as C or C++ by their text: every one was C.
BUILTIN_BEFORE_HEADERS = {
    **crawlpolicy.BUILTIN,
    "fileTypes": {**crawlpolicy.BUILTIN["fileTypes"], ".h": "c"},
}
HEADERS: dict[str, str | bytes] = {
    "db/version_edit.h": (
        "#include <string>\n\nnamespace leveldb {\n\nclass VersionEdit {\n public:\n"
        "  void AddFile(int level, uint64_t file,\n               const std::string& smallest) {\n"
        "    files_.push_back(level);\n  }\n\n private:\n  int files_;\n};\n\n}  // namespace leveldb\n"
    ),
    "db/version_edit.cc": '#include "db/version_edit.h"\n\nnamespace leveldb {\nvoid VersionEdit::Clear() {}\n}\n',
    "include/c.h": '#ifdef __cplusplus\nextern "C" {\n#endif\n\ntypedef struct db_t db_t;\n'
    "int db_open(const char* name);\n\n#ifdef __cplusplus\n}\n#endif\n",
}


def test_a_label_crawled_when_every_header_was_c_rechunks_its_cpp_headers(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: a `.h` file written in C++ is chunked by the C++ grammar and stored as `cpp`, its
    class and in-class methods named; a label crawled before re-chunks its headers (only them) at
    the next refresh; a C header with C++ guards stays C."""
    repo = git_repo(HEADERS, name="kv")
    p, crawl, live = _under_policy(BUILTIN_BEFORE_HEADERS, repo, engine, tmp_path)
    assert crawl(live, repo.head())["files_total"] == 3
    before = {v["relative_path"]: v for v in label_state(live, "kv:main").values()}
    assert before["db/version_edit.h"]["lang"] == "c"  # what it was
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    summary = crawl(live, repo.head())
    assert summary["mode"] == "incremental"
    assert summary["files_embedded"] == 2  # the two headers; the .cc keeps its chunks
    after = label_state(live, "kv:main")
    by_path: dict[str, list[Any]] = {}
    for v in after.values():
        by_path.setdefault(v["relative_path"], []).append(v)
    cpp = by_path["db/version_edit.h"]
    assert {v["lang"] for v in cpp} == {"cpp"}
    assert {v["chunker_id"] for v in cpp} == {engine.chunker_id("header")}
    assert {v["chunk_type"] for v in before.values() if v["relative_path"] == "db/version_edit.h"} == {
        "function"  # the C grammar's reading of `namespace leveldb {`
    }
    assert {v["chunk_type"] for v in cpp} == {"namespace"}
    assert any({"versionedit", "addfile"} <= set(v["defines"]) for v in cpp)  # a method in its class
    assert {v["lang"] for v in by_path["include/c.h"]} == {"c"}
    assert {v["file_id"] for v in by_path["db/version_edit.cc"]} == {
        v["file_id"] for v in before.values() if v["relative_path"] == "db/version_edit.cc"
    }
    _as_a_full_crawl_makes_it(crawl, repo.head(), "kv:main", after, tmp_path)
    live.close()
