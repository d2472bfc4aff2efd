from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.policy.crawlpolicy import BUILTIN, parse
from monodex.indexer.policy.globs import compile_glob

from monodex.disk import paths
from monodex.errors import UsageError

SEED_TABLE = [
    ("src/utils.test.ts", True),
    # what git tracks is source (issue 34): no folder name alone leaves a tracked file out
    ("lib/utils.test.ts", True),
    ("lib/router/index.js", True),  # expressjs/express's framework
    ("node_modules/x/index.ts", False),  # vendored: linguist's marker
    ("pkg/src/node_modules/y.ts", True),  # keep wins even here (a hand-written test fixture)
    ("a/b.js", True),  # JavaScript is indexed (issue 23)
    ("docs/README.md", True),
    ("common/temp/x.ts", True),  # git-ignored by Rush, so tracked only on purpose
    ("x.snap", False),
    # more of a Rush monorepo
    ("libraries/x/src/utils.test.ts", True),
    ("libraries/x/lib/utils.ts", True),
    ("libraries/x/lib-commonjs/index.ts", True),
    ("libraries/x/dist/x.d.ts", True),
    ("libraries/x/mylib/index.ts", True),
    ("apps/web/src/App.tsx", True),
    ("apps/web/App.test.tsx", True),
    ("apps/web/index.d.ts", True),
    ("common/config/rush/pnpm-lock.yaml", False),
    ("config/rush.yaml", True),
    ("libraries/x/package.json", True),  # config is indexed
    ("libraries/x/test/fixtures/lib/a.ts", True),  # `test/` keeps
    ("src/x.TS", False),  # case-sensitive
    ("README", True),  # planned as a script: its first line decides (plan.text_problem)
    ("android/gradlew", False),  # Gradle's wrapper, the same in every project
    ("android/gradlew.bat", False),
    ("mvnw", False),
    # polyglot monorepos (issue 23): config, JavaScript and other languages in; vendored code,
    # lock files, change files and bundles out by their markers (issue 34)
    ("rush.json", True),
    ("common/config/rush/command-line.json", True),
    ("common/config/rush/pnpm-lock.yaml", False),
    ("common/changes/@rushstack/heft/fix_2024-01-01.json", False),
    ("apps/x/CHANGELOG.json", False),
    ("package-lock.json", False),
    ("Cargo.lock", False),
    ("svc/go.sum", False),
    ("cmake/leveldbConfig.cmake.in", True),  # templates a build fills in
    ("single-include/CLI11.hpp.in", True),
    ("MANIFEST.in", True),
    ("crates/napi/Cargo.toml", True),
    ("crates/napi/src/lib.rs", True),
    ("crates/napi/target/debug/build/x.rs", True),
    ("tools/acme/cli.py", True),
    ("tools/.venv/lib/site.py", False),
    ("tools/env/lib/python3.12/site-packages/x/y.py", False),
    ("svc/vendor/github.com/x/y.go", False),
    ("third_party/zlib/zlib.h", False),
    ("svc/main.go", True),
    ("android/app/Main.kt", True),
    ("ios/Pods/Alamofire/Session.swift", False),
    ("ios/Kit/Kit.swift", True),
    ("web/build/server/page.js", True),
    ("web/public/vendor.min.js", False),
    ("yarn.lock", False),
    ("svc/Gemfile.lock", False),
    ("common/config/rush/npm-shrinkwrap.json", False),
    ("apps/x/tsconfig.tsbuildinfo", False),
    ("web/eslint.config.mjs", True),
    ("native/include/acme.h", True),
    ("scripts/release.sh", True),
    # settings a question about config or CI finds (issue 34)
    ("common/config/rush/.npmrc", True),
    ("common/config/rush/.npmrc-publish", True),
    (".clang-format", True),
    (".nvmrc", True),
    ("go.mod", True),
    ("svc/go.work", True),
    ("svc/go.sum", False),
    ("cmake/leveldbConfig.cmake.in", True),  # templates a build fills in
    ("single-include/CLI11.hpp.in", True),
    ("MANIFEST.in", True),
    ("x.mod", False),
    # build projects, autoconf macros, a jar's manifest, documentation topics
    ("contrib/vstudio/vc14/zlibvc.vcxproj", True),
    ("contrib/dotzlib/DotZLib.sln", True),
    ("src/App/App.csproj", True),
    ("Directory.Build.props", True),
    ("config/m4/ax_pthread.m4", False),  # says "thread" as often as a runtime's thread pool
    ("website/META-INF/MANIFEST.MF", True),
    ("documentation-website/Writerside/topics/About.topic", True),
    ("Sources/Documentation.docc/Tutorials/GettingStarted.tutorial", True),
    ("contrib/vstudio/vc10/miniunz.vcxproj.filters", False),  # Visual Studio writes it
    (".gitignore", False),
    ("packages/x/.npmignore", False),
]


@pytest.mark.parametrize(("path", "crawled"), SEED_TABLE)
def test_seed_table(path: str, crawled: bool) -> None:
    assert parse(BUILTIN, "built-in").should_crawl(path) is crawled


def _policy(**over: Any) -> dict[str, Any]:
    return {
        "version": 1,
        "fileTypes": {".ts": "typescript"},
        "patternsToExclude": [],
        "patternsToKeep": [],
        **over,
    }


def test_builtin_defaults() -> None:
    p = parse(BUILTIN, "built-in")
    assert p.max_file_bytes == 1 << 20 and p.source == "built-in"
    assert [p.strategy_for(f"a{s}") for s in (".ts", ".tsx", ".md", ".txt", ".css", ".scss")] == [
        "typescript",
        "typescript",
        "markdown",
        *["lineBased"] * 3,
    ]
    # each language's syntax-aware chunker once registered, the line chunker until then
    for suffix, language in ((".yml", "yaml"), (".json", "json"), (".js", "javascript"), (".rs", "rust")):
        expected = language if language in crawlpolicy.STRATEGIES else "lineBased"
        assert p.strategy_for(f"a{suffix}") == expected


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("Cargo.lock", "lock file: Cargo.lock"),
        ("poetry.lock", "lock file: *.lock"),
        ("web/pnpm-lock.yaml", "lock file: pnpm-lock.yaml"),
        ("crates/x/target/debug/a.rs", None),
        ("lib/application.js", None),
        ("app/node_modules/x/index.js", "vendored: node_modules/"),
        ("go/vendor/golang.org/x/y.go", "vendored: vendor/"),
        ("web/a.min.js", "minified: *.min.js"),
        ("common/changes/@acme/x/fix_2024.json", "change file: common/changes/"),
        ("assets/logo.png", "no file type for .png"),
        ("LICENSE", None),  # a script by its name: the reader needs its `#!` line
        ("android/gradlew", "generated: gradlew"),
        (".gitignore", "no file type for .gitignore"),
        ("apps/x/CHANGELOG.json", "generated: CHANGELOG.json"),
        ("pkg/src/node_modules/a.ts", None),  # keep (src/) beats every exclude below it
        # ... but not a vendored folder above it: vendored code has its own src/ and test/
        ("third_party/zlib/src/inflate.c", "vendored: third_party/"),
        ("tests/thirdparty/Fuzzer/test/AFLDriverTest.cpp", "vendored: thirdparty/"),
        ("test/fixtures/node_modules/dep/index.js", None),  # a fixture, as before
        ("rush.json", None),
        ("src/builtin.jq", None),  # a language without a chunker here: by lines (issue 34)
        ("kernels/reduce.cu", None),
        ("shaders/light.frag", None),
        ("configure.ac", None),
        ("justfile", None),
        # a language's grammar and lexer, an installer script, ProGuard rules: source git tracks
        ("src/parser.y", None),
        ("src/lexer.l", None),
        ("crates/tauri-bundler/src/bundle/windows/nsis/installer.nsi", None),
        ("crates/tauri-bundler/src/bundle/windows/msi/main.wxs", None),
        ("gson/src/main/resources/META-INF/proguard/gson.pro", None),
        ("include/fmt/format.inl", None),
        ("sig/jq-release.asc", "no file type for .asc"),
    ],
)
def test_skip_reason_names_the_rule(path: str, reason: str | None) -> None:
    assert parse(BUILTIN, "built-in").skip_reason(path) == reason


def test_a_users_own_pattern_is_named_as_written() -> None:
    p = parse(_policy(patternsToExclude=["gen/", "**/*.g.ts", "node_modules/"]), "t")
    assert p.skip_reason("a/gen/x.ts") == "folder gen/"
    assert p.skip_reason("a/x.g.ts") == "pattern **/*.g.ts"
    assert p.skip_reason("a/node_modules/x.ts") == "vendored: node_modules/"  # a marker wherever it is


def test_no_build_output_folder_name_is_left_in_the_builtin() -> None:
    """DESIGN.md: a tracked file is skipped by a marker of what it is, never by its folder's
    name alone: each built-in exclude is a marker with its kind."""
    assert set(BUILTIN["patternsToExclude"]) == set(crawlpolicy.MARKERS)
    names = {p.strip("*/") for p in crawlpolicy.MARKERS}
    assert not names & {"lib", "dist", "build", "out", "target", "bin", "obj", "temp", "coverage", "src"}


def test_a_recorded_policy_keeps_its_fingerprint_and_heeds_no_gitattributes() -> None:
    """A policy recorded before the .gitattributes markers reads back as it was crawled (same
    fingerprint, markers not heeded), so the next refresh can follow the change file by file."""
    from monodex.indexer.write.policychange import recorded_policy

    before = json.loads(parse(_policy(), "t").canonical)
    before.pop("gitattributes")  # what a label recorded before issue 34
    canonical = json.dumps(before, sort_keys=True, separators=(",", ":"))
    old = recorded_policy({"policy": canonical})
    assert old is not None and not old.gitattributes and old.canonical == canonical
    assert parse(_policy(), "t").gitattributes and parse(_policy(), "t").fingerprint != old.fingerprint
    assert parse(_policy(gitattributes=False), "t").fingerprint == old.fingerprint


def test_a_whole_file_name_and_the_strategies_of_other_text() -> None:
    p = parse(BUILTIN, "built-in")
    assert [p.strategy_for(f) for f in ("Dockerfile", "a/Makefile", "x.zsh", "a.mdx", "a.jsonc")] == [
        "lineBased",
        "lineBased",
        "bash",
        "markdown",
        "json",
    ]
    # a name matches whole, not as a suffix: without a dot it is the built-in's possible script
    assert p.strategy_for("a/NotADockerfile") == "script" and p.strategy_for("a/x.Makefile") is None
    named = parse(_policy(fileTypes={"Justfile": "lineBased", ".ts": "typescript"}), "t")
    assert named.strategy_for("tools/Justfile") == "lineBased" and named.strategy_for("x.Justfile") is None
    assert named.strategy_for("bin/tool") is None  # no `#!` file type: no script


def test_scripts_by_their_first_line_are_a_file_type_a_policy_names() -> None:
    p = parse(_policy(fileTypes={"#!": "script", ".cgi": "script"}), "t")
    assert [p.strategy_for(f) for f in ("bin/tool", "www/form.cgi", ".envrc", "a.b/c")] == [
        "script",
        "script",
        None,  # a dotfile's name is its suffix
        "script",  # the folder's dot is no suffix of the file
    ]
    with pytest.raises(UsageError, match="unknown strategy 'perl'"):
        parse(_policy(fileTypes={"#!": "perl"}), "t")


def test_longest_suffix_wins() -> None:
    p = parse(_policy(fileTypes={".ts": "typescript", ".d.ts": "lineBased"}), "t")
    assert p.strategy_for("a/b.d.ts") == "lineBased" and p.strategy_for("a/b.ts") == "typescript"
    assert p.strategy_for("a/b.tsx") is None


@pytest.mark.parametrize(
    ("glob", "matches", "misses"),
    [
        ("*.ts", ["a.ts", "deep/er/a.ts"], ["a.tsx"]),  # `*` crosses `/` (globset default)
        ("**/gen-*.ts", ["gen-a.ts", "x/y/gen-a.ts"], ["x/agen-a.ts"]),
        ("tools/**", ["tools/a", "tools/a/b.ts"], ["tools", "xtools/a"]),
        ("a/**/b.ts", ["a/b.ts", "a/x/y/b.ts"], ["ab.ts"]),
        ("x?.ts", ["x1.ts", "x/.ts"], ["x12.ts"]),
        ("[0-9]*.ts", ["9lives.ts"], ["lives.ts"]),
        ("[!a]b.ts", ["cb.ts"], ["ab.ts"]),
        ("[]x]y", ["]y", "xy"], ["zy"]),
        ("tools/{a,b{c,d}}/*", ["tools/a/x", "tools/bd/x"], ["tools/b/x", "tools/e/x"]),
        ("a,b.ts", ["a,b.ts"], ["a.ts"]),
        ("\\*.ts", ["*.ts"], ["a.ts"]),
        ("a+(b).ts", ["a+(b).ts"], ["aab.ts"]),
    ],
)
def test_globs(glob: str, matches: list[str], misses: list[str]) -> None:
    regex = compile_glob(glob)
    assert all(regex.match(m) for m in matches) and not any(regex.match(m) for m in misses)


def test_folder_patterns_and_keep_beats_exclude() -> None:
    p = parse(_policy(patternsToExclude=["gen/", "**/*.ts"], patternsToKeep=["keep/"]), "t")
    assert not p.should_crawl("keep.ts") and p.should_crawl("keep/a.ts") and p.should_crawl("x/keep/a.ts")
    p = parse(_policy(patternsToExclude=["gen/"]), "t")
    assert not p.should_crawl("gen/a.ts") and not p.should_crawl("x/gen/a.ts")
    assert p.should_crawl("xgen/a.ts") and p.should_crawl("gen.ts")


@pytest.mark.parametrize(
    ("raw", "field", "needle"),
    [
        ([], "", "expected an object"),
        ({"version": 1}, "fileTypes", "is required"),
        (_policy(version=2), "version", "unsupported version 2"),
        (_policy(version="1"), "version", "expected an integer"),
        (_policy(extra=True), "", "unknown field 'extra'"),
        (_policy(fileTypes=[".ts"]), "fileTypes", "expected an object"),
        (_policy(fileTypes={"ts": "typescript"}), "fileTypes.ts", "must start with '.'"),
        (_policy(fileTypes={".": "typescript"}), "fileTypes..", "must start with '.'"),
        (_policy(fileTypes={"src/*.ts": "typescript"}), "fileTypes.src/*.ts", "whole file"),
        (_policy(fileTypes={".ts": "cobol"}), "fileTypes..ts", "unknown strategy 'cobol'"),
        (_policy(fileTypes={".ts": 1}), "fileTypes..ts", "expected a string"),
        (_policy(patternsToExclude="lib/"), "patternsToExclude", "expected a list"),
        (_policy(patternsToKeep=[3]), "patternsToKeep[0]", "expected a string"),
        (_policy(patternsToKeep=[""]), "patternsToKeep[0]", "must not be empty"),
        (_policy(patternsToExclude=["src/[abc"]), "patternsToExclude[0]", "unclosed '['"),
        (_policy(patternsToExclude=["ok/", "{a,b"]), "patternsToExclude[1]", "unclosed '{'"),
        (_policy(patternsToExclude=["a}"]), "patternsToExclude[0]", "unmatched '}'"),
        (_policy(patternsToExclude=["a\\"]), "patternsToExclude[0]", "dangling"),
        (_policy(patternsToExclude=["[z-a].ts"]), "patternsToExclude[0]", "invalid glob"),
        (_policy(patternsToExclude=["**/temp/"]), "patternsToExclude[0]", "glob characters"),
        (_policy(patternsToExclude=["/lib/"]), "patternsToExclude[0]", "starts with '/'"),
        (_policy(maxFileBytes=0), "maxFileBytes", "must be at least 1"),
        (_policy(maxFileBytes=True), "maxFileBytes", "expected an integer"),
        (_policy(gitattributes="yes"), "gitattributes", "expected true or false"),
        ({"version": 1, "extends": "mine"}, "extends", "cannot extend 'mine'"),
        ({"version": 1, "extends": 1}, "extends", "expected a string"),
        ({"extends": "built-in"}, "version", "is required"),
        (
            {"version": 1, "extends": "built-in", "fileTypes": {"ts": "typescript"}},
            "fileTypes.ts",
            "must start",
        ),
        (
            {"version": 1, "extends": "built-in", "patternsToExclude": ["/docs/"]},
            "patternsToExclude[0]",
            "'/'",
        ),
        (_policy(roots=[]), "roots", "is empty"),
        (_policy(roots="libraries/"), "roots", "expected a list"),
        (_policy(roots=["libraries/", "../x"]), "roots[1]", "not a folder of the repository"),
        (_policy(roots=["/libraries"]), "roots[0]", "not a folder of the repository"),
        (_policy(roots=["apps/*"]), "roots[0]", "not a folder of the repository"),
        (_policy(roots=["./apps"]), "roots[0]", "not a folder of the repository"),
    ],
)
def test_validation_errors_name_file_field_and_fix(raw: Any, field: str, needle: str) -> None:
    with pytest.raises(UsageError) as info:
        parse(raw, "/r/monodex-crawl.json")
    problem = info.value.problem
    assert problem.startswith(f"/r/monodex-crawl.json: {field}") and needle in problem
    assert info.value.hint


def test_exactly_one_source_repo_then_user_then_builtin(tmp_path: Path) -> None:
    p = paths.resolve()
    assert crawlpolicy.load(tmp_path, p).source == "built-in"
    p.user_crawl_file.parent.mkdir(parents=True, exist_ok=True)
    p.user_crawl_file.write_text(json.dumps(_policy(fileTypes={".md": "markdown"})))
    user = crawlpolicy.load(tmp_path, p)
    assert user.source == str(p.user_crawl_file) and user.strategy_for("a.ts") is None
    (tmp_path / "monodex-crawl.json").write_text(json.dumps(_policy()))
    repo = crawlpolicy.load(tmp_path, p)
    assert repo.source == str(tmp_path / "monodex-crawl.json")
    assert repo.strategy_for("a.md") is None  # no merging with the user's policy
    (tmp_path / "monodex-crawl.json").write_text("{ broken")
    with pytest.raises(UsageError) as info:  # a broken repo policy never falls back
        crawlpolicy.load(tmp_path, p)
    assert "monodex-crawl.json is not valid JSON" in info.value.problem


def test_fingerprint_tracks_the_effective_policy() -> None:
    base = parse(_policy(), "a").fingerprint
    assert parse(_policy(maxFileBytes=1 << 20, **{"$schema": "x"}), "b").fingerprint == base
    assert parse(_policy(maxFileBytes=10), "a").fingerprint != base
    assert parse(_policy(patternsToKeep=["src/"]), "a").fingerprint != base
    assert len(base) == 64 and parse(BUILTIN, "built-in").fingerprint == parse(BUILTIN, "x").fingerprint


def test_a_policy_that_extends_the_built_in_one_adds_to_it() -> None:
    """`"extends": "built-in"`: leaving one folder out, or adding one file type, without copying
    the built-in's rules; its own fields add to them (a file type of its own wins)."""
    assert (
        parse({"version": 1, "extends": "built-in"}, "x").fingerprint
        == parse(BUILTIN, "built-in").fingerprint
    )
    mine = parse(
        {
            "version": 1,
            "extends": "built-in",
            "fileTypes": {".tmpl": "lineBased", ".md": "lineBased"},
            "patternsToExclude": ["drafts/", "**/*.gen.ts"],
            "patternsToKeep": ["fixtures/"],
        },
        "/r/monodex-crawl.json",
    )
    assert mine.skip_reason("docs/drafts/a.md") == "folder drafts/"
    assert mine.skip_reason("pkg/api.gen.ts") == "pattern **/*.gen.ts"
    assert mine.skip_reason("pkg/src/api.gen.ts") is None  # the built-in keeps `src/` whatever excludes
    assert mine.skip_reason("node_modules/x/index.ts") == "vendored: node_modules/"  # the built-in's
    assert mine.skip_reason("pkg/fixtures/node_modules/x/index.ts") is None  # its keep beats an exclude
    assert mine.strategy_for("page.tmpl") == "lineBased" and mine.strategy_for("a.md") == "lineBased"
    assert mine.strategy_for("a.rs") == "rust"
    # what it records is the effective policy: read back, the same policy without `extends`
    again = parse(json.loads(mine.canonical), "recorded")
    assert again.fingerprint == mine.fingerprint and again.skip_reason("docs/drafts/a.md") == "folder drafts/"


def test_roots_name_the_folders_a_crawl_reads() -> None:
    policy = parse(
        {"version": 1, "extends": "built-in", "roots": ["libraries", "apps/rush/", "libraries/"]}, "x"
    )
    assert policy.roots == ("libraries/", "apps/rush/")
    assert policy.skip_reason("libraries/core/src/index.ts") is None
    assert policy.skip_reason("apps/rush/src/start.ts") is None
    assert policy.skip_reason("apps/web/src/App.tsx") == crawlpolicy.OUTSIDE_ROOTS
    assert policy.skip_reason("libraries-old/a.ts") == crawlpolicy.OUTSIDE_ROOTS  # a folder, not a prefix
    assert policy.skip_reason("rush.json") == crawlpolicy.OUTSIDE_ROOTS
    assert policy.skip_reason("libraries/core/node_modules/d/index.ts") == "vendored: node_modules/"
    assert policy.fingerprint != parse(BUILTIN, "built-in").fingerprint
    again = parse(json.loads(policy.canonical), "recorded")
    assert again.roots == policy.roots and again.fingerprint == policy.fingerprint


def test_code_with_a_syntax_aware_chunker_may_be_four_times_the_size_limit() -> None:
    builtin = parse(BUILTIN, "built-in")
    assert builtin.byte_limit("crates/rt/src/scheduler.rs") == 4 << 20
    assert builtin.byte_limit("src/index.ts") == builtin.byte_limit("lib/a.c") == 4 << 20
    for path in ("dist/app.js", "src/types.d.ts", "data/pages.json", "docs/guide.md", "build.gradle"):
        assert builtin.byte_limit(path) == 1 << 20, path
    small = parse(_policy(maxFileBytes=10, fileTypes={".rs": "rust", ".md": "markdown"}), "x")
    assert small.byte_limit("a.rs") == 40 and small.byte_limit("a.md") == 10
