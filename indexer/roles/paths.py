"""What kind of file a path is, by the path alone (issue 14, 34): the product's source, or a file
that exercises, records or describes it (a test, an example, a benchmark, a snapshot, a changelog,
instructions for coding agents, a copy built from the sources). The ranking moves the secondary
ones down (rank/ranking.py); `monodex eval` counts only source files as answers; the dry run's
advice names a heavy folder's role."""

from __future__ import annotations

import functools
import re

SOURCE = "source"

_ROLES = (
    # instructions for AI coding agents (skills, rules, prompts: `.claude/skills/*/SKILL.md`,
    # `.cursor/rules/*.mdc`, `.github/prompts/`): how to work in the repository, often one skill
    # pack copied for each agent, and they say every word a change request says ("debug", "test",
    # "review") without being its answer. Their own files decide what a folder holds
    # (`AGENTS.md` beside a package describes that package and stays in place), but a skill is
    # named SKILL.md wherever a package ships it (trpc's `packages/client/skills/links/SKILL.md`).
    (
        "agent",
        re.compile(
            r"(^|/)\.(claude|agents?|cursor|windsurf|codex|gemini|clinerules|roo|kiro)/"
            r"|(^|/)\.github/(agents|prompts|instructions|skills|chatmodes)/|(^|/)SKILL\.md$"
        ),
    ),
    ("snapshot", re.compile(r"(^|/)__snapshots__/|\.snap$")),
    (
        # build-tests/: the test projects of Rush repositories; then each ecosystem's layout:
        # tests/ (Rust, Python), src/test/ (Maven, Gradle), Tests/ (Swift), foo_test.go and Go's
        # testdata/ (the go tool's name for tests' files: gopls keeps thousands of Go programs there),
        # test_foo.py / foo_test.py / conftest.py, FooTest.java / FooTests.kt / FooTests.swift,
        # C and C++'s foo_test.c / foo_unittest.cc / test_foo.c (jq's src/jq_test.c), and a code
        # file named test or tests in any language (hiredis's whole suite is test.c, first for
        # four of its questions; Rust's tests.rs modules beside the code); cargo-fuzz's fuzz/ targets
        # at the root or a crate's (ripgrep, serde_json, tokio, CLI11: none an answer in our sets;
        # deeper, `internal/fuzz/` is a fuzzing engine's own code)
        "test",
        re.compile(
            r"(^|/)(__tests__|__mocks__|[Tt]ests?|test-data|testdata|fixtures?|build-tests(-samples)?)/"
            r"|^([^/]+/)?fuzz/"
            r"|\.(test|spec)\.[cm]?[jt]sx?$|\.(test|spec)\.[a-z]+$"
            r"|_test\.(go|py)$|(^|/)(test_[^/]*|conftest)\.py$"
            r"|_(unit)?tests?\.(c|cc|cpp|cxx)$|(^|/)test_[^/]*\.(c|cc|cpp|cxx)$"
            r"|[a-z0-9]Tests?\.(java|kt|swift|cs)$"
            r"|(^|/)tests?\.(c|cc|cpp|cxx|rs|py|go|java|kt|swift|[cm]?[jt]sx?)$"
        ),
    ),
    # examples and demos call the API the way a question says it; the library they exercise is
    # the answer. A change request often touches them too (napi-rs's examples/napi/ is its test
    # suite): they move down fewer places than tests (EXAMPLE_DEMOTION). FastAPI's docs keep
    # theirs in docs_src/ (464 programs beside 56 files of the library).
    ("example", re.compile(r"(^|/)(examples?|samples?|demos?|_examples?|docs?_src)/", re.IGNORECASE)),
    # a single-header or amalgamated copy a tool builds from the sources (nlohmann/json's
    # single_include/, SQLite's amalgamation): it repeats every source file's text, and the file
    # a question is about is the source it was copied from; so is another project's code bundled
    # with this one (spdlog's `fmt/bundled/`: half its chunks), which a question about the
    # repository is seldom about
    ("copy", re.compile(r"(^|/)(single_include|amalgamat(ed|ion)|bundled)/|[-_.]amalgamat(ed|ion)\.[a-z]+$")),
    # benchmarks name what they measure as often as tests do (vuejs/core's __benchmarks__/*.bench.ts)
    # ... and so do the bundles a tree-shaking check builds (zod's packages/treeshake/: one import each)
    (
        "benchmark",
        re.compile(r"(^|/)(__benchmarks__|benchmarks?|benches|bench|treeshak(e|ing))/|\.bench\.[a-z]+$"),
    ),
    # recorded output a test compares against: it repeats every message the code prints
    ("test-output", re.compile(r"(^|/)(__expected__|expected(-output)?|__fixtures__|golden)/")),
    ("api-report", re.compile(r"(^|/)common/reviews/api/|\.api\.md$")),
    ("change-file", re.compile(r"(^|/)common/changes/")),
    ("changelog", re.compile(r"(^|/)CHANGELOG\.(md|json)$", re.IGNORECASE)),
)


@functools.lru_cache(maxsize=8192)  # each candidate's, every search: a dozen patterns a path
def role_of(relative_path: str, chunk_kind: str | None = None) -> str:
    """source, or the kind of secondary file: agent, test, snapshot, example, copy, benchmark,
    test-output, api-report, change-file, changelog (the signals give config files and, for a
    question about code, prose pages and the repository's tooling theirs: config, docs, tooling)."""
    for role, pattern in _ROLES:
        if pattern.search(relative_path):
            return role
    return "changelog" if chunk_kind == "changelog" else SOURCE
