"""Ranking signals (issue 14) on hand-made hits: each moves what it should, says why, and never
drops a hit."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from monodex.indexer.points.langs import lang_of
from monodex.indexer.question import query as reading
from monodex.indexer.rank import candidates, kinds, named, ranking, signals
from monodex.indexer.rank.candidates import Candidate, Weights
from monodex.indexer.store.base import Scored
from monodex.indexer.translations import copies

NEUTRAL = Weights(
    docs=1.0,
    definition=1.0,
    package=1.0,
    file_evidence=0.0,
    tested=0.0,
    history=0.0,
    symbol=0.0,
    pipeline=0.0,
    name_coverage=0.0,
)


def _cand(path: str, score: float, ordinal: int = 1, **payload: Any) -> Candidate:
    lang = "markdown" if path.endswith(".md") else "typescript"
    body = {"relative_path": path, "chunk_ordinal": ordinal, "file_id": path, "lang": lang, **payload}
    return Candidate(Scored(id=f"{path}:{ordinal}", score=score, payload=body), score, None, None)


def _order(cands: list[Candidate]) -> list[str]:
    return [k.candidate.path for k in ranking.rank(cands, limit=10, per_file=1, include_tests=False)]


def test_fuse_is_qdrants_rrf_and_keeps_each_lists_rank() -> None:
    a, b, c = (Scored(x, 0.0, {"relative_path": x}) for x in "abc")
    cands = {c.hit.id: c for c in candidates.fuse([a, b], [b, c], k=5, weights=(1.0, 1.0))}
    assert cands["b"].fused == 1 / 6 + 1 / 5  # second in dense, first in lexical
    assert (cands["b"].dense_rank, cands["b"].lexical_rank) == (2, 1)
    assert (cands["a"].dense_rank, cands["a"].lexical_rank) == (1, None)
    assert cands["c"].score == cands["c"].fused == 1 / 6


def test_equal_scores_rank_by_path_whatever_order_the_store_returned_them_in() -> None:
    """Three wrappers that differ by one word have one BM25 score; the store returns them in the
    order its segments hold them, which the crawl's order decides (one test failed in one run of
    five): a list's ties are ranked by path, so every index of a commit ranks them alike."""
    hits = [Scored(p, 2.5, {"relative_path": p}) for p in ("src/table.ts", "src/map.ts", "src/set.ts")]
    best = Scored("src/raw.ts", 3.0, {"relative_path": "src/raw.ts"})
    for order in (hits, hits[::-1], [hits[1], hits[2], hits[0]]):
        cands = candidates.fuse([best, *order], [*order, best], k=5, weights=(1.0, 1.0))
        ranks = {c.path: (c.dense_rank, c.lexical_rank) for c in cands}
        assert ranks == {
            "src/raw.ts": (1, 1),
            "src/map.ts": (2, 2),
            "src/set.ts": (3, 3),
            "src/table.ts": (4, 4),
        }


def test_docs_move_below_code_of_similar_score_but_stay_when_nothing_else_answers() -> None:
    w = Weights(docs=0.5, name_coverage=0.0)
    cands = [_cand("docs/guide/profiles.md", 0.30), _cand("src/ProfileService.ts", 0.20)]
    assert _order(signals.apply(cands, "apply the profile on checkout", w)) == [
        "src/ProfileService.ts",
        "docs/guide/profiles.md",
    ]
    assert cands[0].moved == [{"signal": "docs", "change": -0.15, "why": "a prose page, not code"}]
    alone = [_cand("docs/guide/profiles.md", 0.30)]
    assert _order(signals.apply(alone, "profile", w)) == ["docs/guide/profiles.md"]


def test_a_query_naming_a_package_lifts_that_packages_files() -> None:
    w = Weights(package=1.5)
    cands = [
        _cand("libraries/terminal/src/Colorize.ts", 0.30, package_name="@rushstack/terminal"),
        _cand("libraries/rush-lib/src/logic/Colors.ts", 0.25, package_name="@microsoft/rush-lib"),
    ]
    signals.apply(cands, "[rush-lib] fix colors in the summary", w)
    assert _order(cands)[0] == "libraries/rush-lib/src/logic/Colors.ts"
    assert cands[1].moved[0]["signal"] == "package" and "rush-lib" in cands[1].moved[0]["why"]
    assert cands[0].moved == []


def test_a_name_that_is_also_part_of_another_packages_name_singles_out_nothing() -> None:
    cands = [
        _cand("apps/sparo/src/start.ts", 0.20, package_name="sparo"),
        _cand("apps/sparo-lib/src/cli/commands/checkout.ts", 0.30, package_name="sparo-lib"),
    ]
    signals.apply(cands, "sparo checkout keeps the profile", Weights(package=1.5))
    assert _order(cands)[0] == "apps/sparo-lib/src/cli/commands/checkout.ts"


def test_the_definition_of_a_named_identifier_outranks_its_mentions() -> None:
    w = Weights(definition=1.5)
    cands = [
        _cand("src/logging/Logger.ts", 0.30, symbol_name="Logger.child", chunk_type="method"),
        _cand("src/logging/ScopedLogger.ts", 0.22, ordinal=2, symbol_name="ScopedLogger", chunk_type="class"),
        _cand("src/Terminal.ts", 0.21, symbol_name="Terminal", chunk_type="class"),
    ]
    signals.apply(cands, "Fix ScopedLogger dropping warnings", w)
    assert _order(cands) == ["src/logging/ScopedLogger.ts", "src/logging/Logger.ts", "src/Terminal.ts"]
    assert cands[1].moved[0]["why"] == "defines ScopedLogger, which the query names"


def test_identifiers_are_code_shaped_words_only() -> None:
    # `Git` is too short to tell from a word; `Windows` and `Fix` are words
    names = named.identifiers("Fix ITerminal and Git.normalizeGitUrl in rush_lib for Windows")
    assert names == {"ITerminal", "normalizeGitUrl", "rush_lib"}
    assert named.identifiers("Add support for catalogs") == set()


def test_several_matching_chunks_of_a_file_beat_one_chunk_of_another() -> None:
    # a short question weighs file evidence double (test below): as given here
    w = candidates.switched_off(Weights(file_evidence=0.5, file_chunks=2, name_coverage=0.0), ["short"])
    cands = [
        _cand("src/rare.ts", 0.30),
        _cand("src/answer.ts", 0.25, ordinal=1),
        _cand("src/answer.ts", 0.15, ordinal=2),
        _cand("src/answer.ts", 0.10, ordinal=3),
    ]
    signals.apply(cands, "what builds the answer", w)
    assert _order(cands) == ["src/answer.ts", "src/rare.ts"]
    best = cands[1]
    assert best.score == 0.25 + 0.5 * (0.15 + 0.10)
    assert best.moved == [{"signal": "file", "change": 0.125, "why": "2 more chunk(s) of this file match"}]


def test_neutral_weights_change_nothing() -> None:
    cands = [
        _cand("README.md", 0.3),
        _cand("src/ScopedLogger.ts", 0.2, symbol_name="ScopedLogger", chunk_type="class"),
    ]
    signals.apply(cands, "ScopedLogger", NEUTRAL)
    assert [(c.score, c.moved) for c in cands] == [(0.3, []), (0.2, [])]


def test_translated_copies_fold_into_the_best_with_the_others_listed() -> None:
    site = "apps/website"
    zh = f"{site}/i18n/zh-cn/docusaurus-plugin-content-docs/current/pages/commands/sparo_checkout.md"
    cands = [
        _cand(zh, 0.30),
        _cand("apps/sparo-lib/src/cli/commands/checkout.ts", 0.25),
        _cand(f"{site}/docs/pages/commands/sparo_checkout.md", 0.20),
        _cand(f"{site}/docs/pages/commands/sparo_clone.md", 0.10),
    ]
    kept = ranking.rank(cands, limit=10, per_file=1, include_tests=False)
    assert [(k.candidate.path, k.also) for k in kept] == [
        (zh, [f"{site}/docs/pages/commands/sparo_checkout.md"]),
        ("apps/sparo-lib/src/cli/commands/checkout.ts", []),
        (f"{site}/docs/pages/commands/sparo_clone.md", []),
    ]


def test_translation_paths() -> None:
    assert copies.translation_tail("i18n/fr/guide/intro.md") == "guide/intro.md"
    assert copies.translation_tail("src/locales/de/messages.json") == "messages.json"
    assert copies.translation_tail("docs/zh-cn/intro.md") == "intro.md"
    assert copies.translation_tail("libraries/rush-lib/src/logic/i18n.ts") is None
    assert copies.translation_tail("docs/pages/intro.md") is None
    assert copies.same_page("i18n/ja/docs/intro.md", "i18n/ko/docs/intro.md")
    assert not copies.same_page("docs/a/intro.md", "docs/b/intro.md")


def test_a_documentation_sites_versioned_copies_of_a_page_take_one_slot() -> None:
    """Docusaurus keeps each released version's pages (`versioned_docs/version-1.x/`) beside the
    current ones (`docs/`): the same page again, which took a slot for each version."""
    old = "website/versioned_docs/version-1.x/config/dev-server.md"
    cands = [
        _cand("website/docs/config/dev-server.md", 0.30),
        _cand(old, 0.28),
        _cand("packages/core/src/server/index.ts", 0.25),
        _cand("website/versioned_docs/version-1.x/config/shared.md", 0.20),
    ]
    kept = ranking.rank(cands, limit=10, per_file=1, include_tests=False)
    assert [(k.candidate.path, k.also) for k in kept] == [
        ("website/docs/config/dev-server.md", [old]),
        ("packages/core/src/server/index.ts", []),
        ("website/versioned_docs/version-1.x/config/shared.md", []),
    ]
    assert copies.translation_tail(old) == "config/dev-server.md"
    assert not copies.same_page(old, "website/docs/config/shared.md")


def test_instructions_for_coding_agents_move_down_unless_the_question_asks_for_them() -> None:
    """A skill pack copied for each agent (`.claude/skills/`, `.agents/skills/`) and editor rules
    say every word a change request says ("debug", "test", "review"); they are how to work in the
    repository, not its code. A package's own AGENTS.md describes that package and stays."""
    skill = ".claude/skills/systematic-debugging/SKILL.md"

    def cands() -> list[Candidate]:
        return [
            _cand(skill, 0.40),
            _cand(".agents/skills/systematic-debugging/SKILL.md", 0.39),
            _cand(".cursor/rules/debugging.mdc", 0.38),
            _cand(".github/prompts/debug.prompt.md", 0.37),
            _cand("libraries/rush-lib/AGENTS.md", 0.36),
            *(_cand(f"src/debug{n}.ts", 0.30 - n / 1000) for n in range(24)),
        ]

    assert {ranking.role_of(c.path) for c in cands()[:4]} == {"agent"}
    assert ranking.role_of("libraries/rush-lib/AGENTS.md") == ranking.SOURCE
    # a package's shipped skill (trpc's) is one wherever it lies; a page about skills is not
    assert ranking.role_of("packages/client/skills/links/SKILL.md") == "agent"
    assert ranking.role_of("docs/skills/overview.md") == ranking.SOURCE
    plain = [k.candidate.path for k in ranking.rank(cands(), limit=30, per_file=1, include_tests=False)]
    assert plain[0] == "libraries/rush-lib/AGENTS.md"
    # first by the lists, each goes DEMOTION (20) result places below where it was: after the
    # package's page and sixteen source files
    assert [ranking.role_of(p) for p in plain[:17]] == [ranking.SOURCE] * 17
    assert plain.index(skill) == 17
    asks = reading.read("where is the systematic debugging skill for agents").asks
    assert "agent" in asks
    asked = ranking.rank(cands(), limit=20, per_file=1, include_tests=False, asks=asks)
    assert asked[0].candidate.path == skill
    assert "agent" not in reading.read("fix: the debugger drops breakpoints").asks


def test_a_translated_modules_files_take_one_slot_and_the_source_language_stands_for_them() -> None:
    """zod's 47 `locales/*.ts` say the same messages in 47 languages: "where do the default English
    error messages come from" listed five translations first and `en.ts` nowhere in ten."""
    loc = "packages/zod/src/v4/locales"

    def cands() -> list[Candidate]:
        return [
            _cand(f"{loc}/el.ts", 0.50),
            _cand(f"{loc}/bn.ts", 0.45),
            _cand("packages/zod/src/v4/classic/schemas.ts", 0.40),
            _cand(f"{loc}/hi.ts", 0.35),
            _cand(f"{loc}/de.ts", 0.15),
            _cand(f"{loc}/en.ts", 0.10),
            _cand("packages/zod/src/v3/locales/en.ts", 0.05),  # another folder: another module
        ]

    kept = ranking.rank(cands(), limit=10, per_file=1, include_tests=False)
    assert [(k.candidate.path, k.also) for k in kept] == [
        (f"{loc}/en.ts", [f"{loc}/el.ts", f"{loc}/bn.ts", f"{loc}/hi.ts", f"{loc}/de.ts"]),
        ("packages/zod/src/v4/classic/schemas.ts", []),
        ("packages/zod/src/v3/locales/en.ts", []),
    ]
    # the language a question names stands for its folder; without its file, the best one does
    german = ranking.rank(cands(), limit=10, per_file=1, include_tests=False, locale="de")
    assert german[0].candidate.path == f"{loc}/de.ts"
    assert german[0].also == [f"{loc}/el.ts", f"{loc}/bn.ts", f"{loc}/hi.ts", f"{loc}/en.ts"]
    no_file = ranking.rank(cands(), limit=10, per_file=1, include_tests=False, locale="ja")
    assert no_file[0].candidate.path == f"{loc}/el.ts"
    assert reading.read("where do the default German error messages live").locale == "de"
    assert reading.read("where are error messages built").locale is None


def test_a_second_chunk_of_a_kept_copy_is_its_own_not_a_copy_of_itself() -> None:
    """`--per-file 2`: a translated page's second chunk was folded into the page's own `"also"` (the
    page listed as a copy of itself, its second chunk lost), and a stand-in's chunk was met twice."""
    page = "i18n/zh/docs/intro.md"
    cands = [_cand(page, 0.5), _cand(page, 0.45, ordinal=2), _cand("docs/intro.md", 0.3)]
    kept = ranking.rank(cands, limit=10, per_file=2, include_tests=False)
    assert [(k.hit.id, k.also) for k in kept] == [
        (f"{page}:1", ["docs/intro.md"]),
        (f"{page}:2", []),
    ]
    loc = "src/locales"
    cands = [
        _cand(f"{loc}/el.ts", 0.5),
        _cand(f"{loc}/el.ts", 0.49, ordinal=2),
        _cand("src/a.ts", 0.4),
        _cand(f"{loc}/en.ts", 0.2),
        _cand(f"{loc}/en.ts", 0.19, ordinal=2),
    ]
    kept = ranking.rank(cands, limit=10, per_file=2, include_tests=False)
    assert [(k.hit.id, k.also) for k in kept] == [
        (f"{loc}/en.ts:1", [f"{loc}/el.ts"]),
        ("src/a.ts:1", []),
        (f"{loc}/en.ts:2", []),
    ]


def test_locale_files() -> None:
    assert copies.locale_of("packages/zod/src/v4/locales/en.ts") == ("packages/zod/src/v4/locales", "en")
    assert copies.locale_of("config/locales/pt-BR.yml") == ("config/locales", "pt")
    assert copies.locale_of("src/i18n/zh_CN.json") == ("src/i18n", "zh")
    assert copies.locale_of("locale/fr.js") == ("locale", "fr")
    # not a language's code, or not a locale folder: a highlighter's languages, an index
    assert copies.locale_of("src/locales/index.ts") is None
    assert copies.locale_of("src/locales/js.ts") is None
    assert copies.locale_of("src/languages/go.js") is None
    assert copies.locale_of("src/lang/de.ts") is None
    assert not copies.same_page("a/locales/en.ts", "b/locales/de.ts")


def test_expected_output_is_secondary() -> None:
    assert ranking.role_of("libraries/x/src/__expected__/out.txt") == "test-output"
    assert ranking.role_of("tools/gen/expected-output/api.ts") == "test-output"


def test_a_matching_test_lifts_the_file_it_tests_and_never_adds_one() -> None:
    w = Weights(tested=0.25)
    cands = [
        _cand("libraries/rush-lib/src/logic/Other.ts", 0.30),
        _cand("libraries/rush-lib/src/logic/test/AsyncOperationQueue.test.ts", 0.40),
        _cand("libraries/rush-lib/src/logic/AsyncOperationQueue.ts", 0.28),
        _cand("packages/core/test/install.test.ts", 0.36),  # a package's test/ mirrors its src/
        _cand("packages/core/src/install.ts", 0.20),
        _cand("packages/core/test/orphan.test.ts", 0.50),  # what it tests was not found
    ]
    signals.apply(cands, "failures do not block the queue", w)
    queue, install = cands[2], cands[4]
    assert queue.score == 0.28 + 0.25 * 0.40
    assert queue.moved == [
        {
            "signal": "tested",
            "change": 0.1,
            "why": "its test libraries/rush-lib/src/logic/test/AsyncOperationQueue.test.ts matches too",
        }
    ]
    assert install.score == 0.20 + 0.25 * 0.36
    assert _order(cands)[0] == "libraries/rush-lib/src/logic/AsyncOperationQueue.ts"  # above Other.ts
    assert [c.moved for c in (cands[0], cands[1], cands[3], cands[5])] == [[], [], [], []]
    assert len(cands) == 6


def test_tested_file_knows_the_usual_layouts() -> None:
    assert signals.tested_file("src/Foo.test.ts") == ["src/Foo.ts"]
    assert "src/logic/Foo.ts" in signals.tested_file("src/logic/test/Foo.test.ts")
    assert "src/Foo.tsx" in signals.tested_file("src/__tests__/Foo.spec.tsx")
    assert "pkg/src/foo.ts" in signals.tested_file("pkg/test/foo.test.ts")
    assert signals.tested_file("src/Foo.ts") == []


def test_benchmarks_are_secondary_like_tests() -> None:
    """vuejs/core's __benchmarks__/*.bench.ts matched queries above the code they measure (issue 22)."""
    assert ranking.role_of("packages/reactivity/__benchmarks__/computed.bench.ts") == "benchmark"
    assert ranking.role_of("packages/server-renderer/src/unrollBuffer.bench.ts") == "benchmark"
    assert ranking.role_of("benchmarks/startup.ts") == "benchmark"
    assert ranking.role_of("benches/with_capacity.rs") == "benchmark"  # cargo's layout
    assert ranking.role_of("bench/bench.cpp") == "benchmark"  # spdlog's, fmt's
    assert ranking.role_of("packages/runtime-core/__tests__/apiWatch.bench.ts") == "test"
    assert ranking.role_of("packages/reactivity/src/computed.ts") == ranking.SOURCE
    assert ranking.role_of("src/benchmarking.ts") == ranking.SOURCE


def test_declarations_of_every_language_count_as_definitions() -> None:
    names = named.identifiers("ThreadsafeFunction leaks in parse_config when MAX_FILE_BYTES is hit")
    assert names == {"ThreadsafeFunction", "parse_config", "MAX_FILE_BYTES"}
    # a syntax chunk: its symbol and chunk_type (struct, impl, trait, ... of the new chunkers)
    for kind in ("struct", "impl", "trait", "function", "const", "module"):
        payload = {"symbol_name": "ThreadsafeFunction", "chunk_type": kind, "relative_path": "src/a.rs"}
        assert named.defines(payload, names) == "ThreadsafeFunction", kind
    # a chunk cut by lines: its declarations are read from its text
    for text, name in (
        ("pub fn parse_config(path: &Path) -> Config {", "parse_config"),
        ("impl<T: 'static> Drop for ThreadsafeFunction<T> {", "ThreadsafeFunction"),
        ("pub const MAX_FILE_BYTES: usize = 1 << 20;", "MAX_FILE_BYTES"),
        ("def parse_config(path):\n    pass\n", "parse_config"),
        ("func (s *Server) parse_config() error {", "parse_config"),
        ("let config = parse_config(path);", None),  # a use, not a declaration
    ):
        payload = {"chunk_type": "text", "text": text, "relative_path": "src/lib.rs"}
        assert named.defines(payload, names) == name, text
    # a module's names bound where a language binds them: Python's assignments, Go's blocks
    for text, path, name in (
        ("MAX_FILE_BYTES: int = 1 << 20\n", "src/limits.py", "MAX_FILE_BYTES"),
        ("const (\n\tMAX_FILE_BYTES = 1 << 20\n)\n", "limits.go", "MAX_FILE_BYTES"),
        ("MAX_FILE_BYTES = 1 << 20;\n", "src/limits.c", None),  # C: an assignment, not a declaration
    ):
        payload = {"chunk_type": "text", "text": text, "relative_path": path}
        assert named.defines(payload, names) == name, text


def test_tests_of_every_ecosystem_move_down() -> None:
    for path in (
        "svc/server_test.go",
        "tools/tests/test_cli.py",
        "tools/acme/cli_test.py",
        "tools/conftest.py",
        "app/src/test/java/com/acme/AppTest.java",
        "app/src/main/kotlin/AppTests.kt",
        "ios/Tests/KitTests/KitTests.swift",
        "crates/napi/tests/env.rs",
        "cli/src/api/build.spec.ts",
        "src/parser.spec.rs",
        "src/jq_test.c",  # jq's test runner: first for a question about printing disassembly
        "absl/strings/str_cat_test.cc",
        "base/logging_unittest.cpp",
        "test_parser.c",
        "test.c",  # hiredis's whole suite: first for four questions about the client it tests
        "src/update/tests.rs",  # a Rust module of tests beside the code (farm)
        "lib/test.py",
    ):
        assert ranking.role_of(path) == "test", path
    for path in (
        "svc/server.go",
        "tools/acme/latest.py",
        "src/Latest.java",
        "crates/napi/src/env.rs",
        "src/jq.c",
        "src/contest.c",
        "src/attest.cc",
        "scripts/test.sh",  # runs the tests: a script, asked about as one
        ".github/workflows/test.yml",
    ):
        assert ranking.role_of(path) == ranking.SOURCE, path


def test_config_files_move_below_code_unless_named_or_a_manifest_a_change_edits() -> None:
    w = Weights(config=0.5)

    def cands() -> list[Candidate]:
        return [
            _cand("common/config/rush/experiments.json", 0.30, lang="json"),
            _cand("crates/napi/Cargo.toml", 0.29, lang="toml"),
            _cand("src/services/GitService.ts", 0.25),
        ]

    change = cands()
    signals.apply(change, "fix git fetch with the new napi", w)
    assert _order(change) == [
        "crates/napi/Cargo.toml",
        "src/services/GitService.ts",
        "common/config/rush/experiments.json",
    ]
    # a question about how the code works: the manifest is not its answer either
    asked = cands()
    signals.apply(asked, "how does sparo run git fetch", w)
    assert _order(asked)[0] == "src/services/GitService.ts"
    named = cands()
    signals.apply(named, "enable the new flag in experiments.json", w)
    assert _order(named)[0] == "common/config/rush/experiments.json"


def test_build_settings_in_other_formats_are_config_files_too() -> None:
    """ProGuard/R8 rules (moshi's `META-INF/proguard/moshi.pro` said every word of a question about
    qualifier annotations and ranked second), `.properties`, `.ini`, `.cfg`, `.conf`: settings,
    not the code that answers; setup.cfg is a package manifest, which a question about how the
    code works moves down too."""
    w = Weights(config=0.5)
    paths = {
        "moshi/src/main/resources/META-INF/proguard/moshi.pro": "pro",
        "gradle.properties": "properties",
        "tox.ini": "ini",
        "etc/nginx.conf": "conf",
        "setup.cfg": "cfg",
    }
    found = [_cand(p, 0.30, lang=lang) for p, lang in paths.items()] + [
        _cand("src/Util.kt", 0.25, lang="kotlin")
    ]
    signals.apply(found, "which component copies qualifier annotations into the generated adapter", w)
    order = _order(found)
    assert order[0] == "src/Util.kt", order
    change = [_cand(p, 0.30, lang=lang) for p, lang in paths.items()] + [
        _cand("src/Util.kt", 0.25, lang="kotlin")
    ]
    signals.apply(change, "fix copying qualifier annotations into the generated adapter", w)
    assert _order(change)[:2] == ["setup.cfg", "src/Util.kt"], _order(change)


def test_a_documentation_sites_topics_are_pages() -> None:
    """Writerside's `.topic` and DocC's `.tutorial` files are pages in XML or directives: stored as
    `topic` and `tutorial`, they move down for a question about the code as Markdown does."""
    w = Weights(docs=0.5, docs_question=0.1)
    found = [
        _cand("documentation-website/Writerside/topics/Transactions.topic", 0.90, lang="topic"),
        _cand("Sources/Kit.docc/Tutorials/Start.tutorial", 0.85, lang="tutorial"),
        _cand("src/Transaction.kt", 0.30, lang="kotlin"),
    ]
    signals.apply(found, "how are nested transactions rolled back?", w)
    assert _order(found)[0] == "src/Transaction.kt", _order(found)


def test_a_phrase_lists_its_pages_by_their_score() -> None:
    """A phrase may be a change's subject ("release notes for 0.1.12", "community slack name and
    domain change" in neon's history), answered by the page: its pages go down x0.1 like a
    question's, not after every source file (docs/search.md said so; the code did not)."""
    w = Weights(docs=0.5, docs_question=0.1)

    def cands() -> list[Candidate]:
        return [_cand("RELEASES.md", 0.90), _cand("src/lib.rs", 0.05, lang="rust")]

    assert _order(signals.apply(cands(), "release notes for 0.1.12", w)) == ["RELEASES.md", "src/lib.rs"]
    question = signals.apply(cands(), "where are the release notes for 0.1.12?", w)
    assert _order(question) == ["src/lib.rs", "RELEASES.md"]


def test_a_question_about_code_lists_the_pages_after_every_source_file() -> None:
    """A page says a question's words more than the code does: x0.1 left libuv's design page above
    a weak source answer. Of 214 Markdown pages in the first ten of our tune questions none was an
    answer; a change request, or a question asking for the docs, keeps them in place."""
    w = Weights(docs=0.5, docs_question=0.1)

    def cands() -> list[Candidate]:
        return [
            _cand("docs/design.md", 0.90),
            _cand("src/loop.c", 0.30, lang="c"),
            _cand("src/threadpool.c", 0.05, lang="c"),
        ]

    asked = cands()
    signals.apply(asked, "how does the event loop hand work to the thread pool", w)
    assert _order(asked) == ["src/loop.c", "src/threadpool.c", "docs/design.md"]
    for text in ("threadpool: hand work from the event loop", "where do the docs explain the thread pool"):
        kept = cands()
        signals.apply(kept, text, w)
        assert _order(kept).index("docs/design.md") < _order(kept).index("src/threadpool.c"), text


def test_a_builds_own_files_are_config_unless_the_query_is_about_building() -> None:
    w = Weights(config=0.5)
    builds = (
        "configure.ac",
        "src/Makefile.am",
        "CMakeLists.txt",
        "cmake/Utils.cmake",
        "app/build.gradle.kts",
        "contrib/vstudio/vc14/zlibvc.vcxproj",
    )

    def cands() -> list[Candidate]:
        found = [_cand(p, 0.30, lang=None) for p in builds]
        return [*found, _cand("src/util.c", 0.25, lang="c")]

    def configs(found: list[Candidate]) -> list[str]:
        return [c.path for c in found if any(m["signal"] == "config" for m in c.moved)]

    for text in (
        "where does jq get a date-parsing implementation when strptime is missing",
        "how do I make the parser accept comments, and which flags turn it on",  # everyday words
    ):
        found = cands()
        signals.apply(found, text, w)
        assert _order(found)[0] == "src/util.c", _order(found)
        assert configs(found) == list(builds)
    asked = cands()
    signals.apply(asked, "where is the strptime fallback compiled in when the build lacks it", w)
    assert configs(asked) == []


def test_a_config_file_the_query_does_not_name_moves_down_like_a_test() -> None:
    # x 0.5 alone left a commented rush.json far above the code; it moves down as tests do
    w = Weights(config=0.5)

    def cands() -> list[Candidate]:
        return [
            _cand("rush.json", 0.90, lang="json"),
            _cand("src/GitService.ts", 0.20),
            _cand("src/GitVersionCompatibility.ts", 0.10),
        ]

    found = signals.apply(cands(), "how is windows compatibility checked?", w)
    assert _order(found) == ["src/GitService.ts", "src/GitVersionCompatibility.ts", "rush.json"]
    assert [k.role for k in ranking.rank(found, limit=3, per_file=1, include_tests=False)][-1] == "config"
    assert _order(signals.apply(cands(), "add a project to rush.json", w))[0] == "rush.json"
    # --include-tests keeps the order of the scores, as it does for tests
    kept = ranking.rank(signals.apply(cands(), "windows", w), limit=3, per_file=1, include_tests=True)
    assert kept[0].candidate.path == "rush.json"
    assert _order(signals.apply(cands(), "windows", Weights(config=0.5, config_down=False)))[0] == "rush.json"


def test_a_tools_settings_dotfile_is_config() -> None:
    """`.editorconfig`, `.npmrc`, `.clang-format`: a tool's settings, stored as `text` (by an
    older monodex under their name, `editorconfig`), neither a page nor code. hono's
    `.editorconfig` said "newline" and ranked first for where newlines are handled."""
    w = Weights(config=0.5)
    for dotfile in (".editorconfig", "common/config/rush/.npmrc-publish", ".clang-format"):
        for lang in (lang_of(dotfile), dotfile.rsplit("/.", 1)[-1].lstrip(".")):
            found = [_cand(dotfile, 0.90, lang=lang), _cand("src/context.ts", 0.30)]
            assert _order(signals.apply(found, "where is the trailing newline handled?", w))[0] == "src/context.ts"
            assert not kinds.is_prose(dotfile, lang)
    named = [_cand(".editorconfig", 0.90, lang=lang_of(".editorconfig")), _cand("src/context.ts", 0.30)]
    assert _order(signals.apply(named, "which newline does the editorconfig ask for", w))[0] == ".editorconfig"


def test_a_change_request_moves_a_config_file_down_by_its_score_alone() -> None:
    """A change edits config as often as it edits code (tauri's `tauri.conf.json`, a workflow's
    settings): for a change request or a phrase a config file the query does not name goes x0.5
    and keeps its place by score; a schema or a scaffolder's copy, which describes config files,
    still goes down ten places (the code reading them is the answer: rush-lib's schemas)."""
    w = Weights(config=0.5)

    def cands(config: str) -> list[Candidate]:
        return [_cand(config, 0.90, lang="json"), _cand("src/GitService.ts", 0.20)]

    for text in ("fix: compatible with windows", "windows compatibility"):
        assert _order(signals.apply(cands("rush.json"), text, w))[0] == "rush.json", text
    schema = signals.apply(cands("src/schemas/rush.schema.json"), "fix: compatible with windows", w)
    assert _order(schema)[0] == "src/GitService.ts"


def test_a_config_file_that_such_changes_edited_keeps_its_place_for_a_change_request() -> None:
    """tauri's `.changes/config.json` changes with every release fix: a request whose words its
    past commits carry (the past words' list lifts it, read/search.py) is answered by it, so it
    is not moved down as a config file the request does not name; a question, a dependency
    update, or a file low on that list still moves down (issue 34)."""
    w = Weights(config=0.5, name_coverage=0.0)
    first = w.past_words_request  # the lift of the list's first file

    def cands(lift: float, commits: int = 12) -> list[Candidate]:
        found = [
            _cand(".changes/config.json", 0.30, lang="json"),
            _cand("crates/tauri-cli/src/build.rs", 0.20, lang="rust"),
            _cand("crates/tauri-cli/src/helpers/cargo.rs", 0.10, lang="rust"),
        ]
        found[0].add("past-words", lift, "earlier commits with the query's words changed it")
        found[0].past_commits = commits
        return found

    request = "fix: cargo check cli.rs not cli.js"
    assert _order(signals.apply(cands(first), request, w))[0] == ".changes/config.json"
    # else x0.5 (a change request keeps a config file's place by its score)

    def scaled(found: list[Candidate]) -> bool:
        return any(m["signal"] == "config" for m in found[0].moved)

    assert scaled(signals.apply(cands(first * 0.2), request, w))
    assert not scaled(signals.apply(cands(first), request, w))
    # one commit with the request's words is no pattern (sparo's rush.json, its one subspace commit)
    assert scaled(signals.apply(cands(first, commits=1), request, w))
    question = "how does the cli run cargo check?"
    assert _order(signals.apply(cands(first), question, w))[-1] == ".changes/config.json"
    update = "fix(deps): update rust crate serde to v1.0.200"
    assert scaled(signals.apply(cands(first), update, w))
    assert scaled(signals.apply(cands(first), request, replace(w, config_past=0.0)))
    # a config format's schema or a scaffolder's copy describes config: the code reading it answers
    for described in (
        "libraries/rush-lib/src/schemas/experiments.schema.json",
        "assets/rush-init/experiments.json",
    ):
        found = cands(first)
        found[0] = _cand(described, 0.30, lang="json")
        found[0].add("past-words", first, "earlier commits with the query's words changed it")
        found[0].past_commits = 12
        assert _order(signals.apply(found, "Add a flag to skip the build with a warning", w))[-1] == described


def test_a_ci_pipeline_keeps_its_place_when_the_query_asks_about_ci() -> None:
    """A workflow YAML holds the commands CI runs: "what does the continuous integration
    workflow run" is answered by it (sparo's .github/workflows/ci.yml fell to 7th as config)."""
    w = Weights(config=0.5)

    def cands(path: str) -> list[Candidate]:
        return [_cand(path, 0.30, lang="yaml"), _cand("README.md", 0.25), _cand("src/GitService.ts", 0.20)]

    pipelines = (
        ".github/workflows/ci.yml",
        "common/config/azure-pipelines/npm-publish.yaml",
        ".gitlab-ci.yml",
        ".circleci/config.yml",
    )
    for path in pipelines:
        for query in (
            "what does the continuous integration workflow run for pull requests",
            "which Node versions does CI test on",
            "ci: add Node 26 to the matrix",
        ):
            assert _order(signals.apply(cands(path), query, w))[0] == path, (path, query)
        # a question about the code is not about CI: the pipeline is config as before (below the
        # code; the README, a page, goes after every source file and config)
        order = _order(signals.apply(cands(path), "how does sparo run git fetch", w))
        assert order == ["src/GitService.ts", path, "README.md"], order
    # only pipelines: other YAML config stays moved down for a CI question
    other = signals.apply(
        cands("common/config/rush/pnpm-config.yaml"), "which Node versions does CI test on", w
    )
    assert _order(other) == ["src/GitService.ts", "common/config/rush/pnpm-config.yaml", "README.md"]


def test_a_pipeline_whose_whole_name_the_question_spells_keeps_its_place() -> None:
    """tsdoc's "Fix an issue with playground build" changed azure-pipelines/playground-build.yaml,
    which fell out of the first ten as a config file the query does not name: "build" names other
    files too, yet the two words together are the pipeline's name."""
    w = Weights(config=0.5)

    def cands() -> list[Candidate]:
        return [
            _cand("common/config/azure-pipelines/playground-build.yaml", 0.30, lang="yaml"),
            _cand("common/config/azure-pipelines/templates/build.yaml", 0.10, lang="yaml"),
            _cand("playground/src/build.ts", 0.25),
            _cand("playground/src/PlaygroundView.tsx", 0.20),
        ]

    found = signals.apply(cands(), "Fix an issue with playground build", w)
    assert _order(found)[0] == "common/config/azure-pipelines/playground-build.yaml"
    # one word of a name is not the name: templates/build.yaml is config the query does not name
    assert _order(found)[-1] == "common/config/azure-pipelines/templates/build.yaml"
    # nor is half of it, nor a config file that is not a pipeline
    half = signals.apply(cands(), "Fix an issue with the playground", w)
    assert _order(half)[-2:] == [
        "common/config/azure-pipelines/playground-build.yaml",
        "common/config/azure-pipelines/templates/build.yaml",
    ]
    config = [_cand("config/playground-build.json", 0.30, lang="json")]
    config += [_cand(f"{folder}/build.ts", 0.25) for folder in ("src", "scripts", "tools")]
    assert _order(signals.apply(config, "Fix an issue with playground build", w))[-1] == (
        "config/playground-build.json"
    )


def test_a_documentation_sites_scripts_count_as_its_pages() -> None:
    w = Weights(site=0.5, name_coverage=0.0)
    for path in (
        "apps/website/sidebars.js",
        "website/docusaurus.config.ts",
        "docs-site/sidebars.ts",
        "packages/docs/components/ecosystem.tsx",  # zod's Next.js site
        "docs/conf.py",  # Sphinx
        # Exposed's Writerside site: its snippets are Kotlin programs that call the API
        "documentation-website/Writerside/snippets/exposed-dao/src/main/kotlin/DaoExamples.kt",
        "Sources/ArgumentParser/Documentation.docc/Snippets/Example.swift",  # a DocC catalog's
    ):
        found = signals.apply(
            [_cand(path, 0.30, lang="javascript"), _cand("src/cli/commands/checkout.ts", 0.20)],
            "Add pages for CLI commands",
            w,
        )
        assert _order(found)[0] == "src/cli/commands/checkout.ts", path
        assert found[0].moved[0]["signal"] == "site"
    # the product's own code in a folder named docs is not a site: `pnpm docs` lives in src/docs/
    kept = signals.apply([_cand("deps/commands/src/docs/index.ts", 0.30)], "open the docs", w)
    assert kept[0].moved == []
    # ... nor is one package's doc/ (cobra's doc generator is its product)
    assert signals.apply([_cand("doc/md_docs.go", 0.30)], "generate markdown pages", w)[0].moved == []
    for query in ("sort the sidebars by title", "the website's navbar links"):
        named = signals.apply([_cand("apps/website/sidebars.js", 0.30, lang="javascript")], query, w)
        assert named[0].moved == [], query


def test_the_dense_pool_keeps_an_answer_that_config_chunks_push_down_the_dense_list() -> None:
    # a config file's key-path sections fill the top of the dense list; the answer comes after
    # them, past a pool of 50 but inside the dense pool, and is first once the config moves down
    from monodex.indexer.read import search

    def hit(path: str, i: int, lang: str) -> Scored:
        return Scored(
            id=f"{path}:{i}",
            score=0.0,
            payload={"relative_path": path, "chunk_ordinal": i, "file_id": path, "lang": lang},
        )

    dense = [hit("common/config/rush/pnpm-config.json", i, "json") for i in range(55)]
    dense.append(hit("src/logic/LocalState.ts", 1, "typescript"))
    lexical = [hit("common/config/rush/pnpm-config.json", i, "json") for i in range(10)]
    n = search._candidates(10, 1)

    def first(pool: int) -> list[str]:
        cands = candidates.fuse(dense[:pool], lexical[:n], k=search.RRF_K, weights=(1.0, 1.0))
        return _order(signals.apply(cands, "where does sparo remember checked out profiles", Weights()))

    assert first(n) == ["common/config/rush/pnpm-config.json"]  # the answer was never a candidate
    assert first(search.DENSE_POOL * n)[0] == "src/logic/LocalState.ts"


# --- issue 34 ----------------------------------------------------------------------------------


def test_a_one_name_question_puts_the_declaration_before_the_file_named_after_it() -> None:
    cands = [
        _cand(
            "src/jv.c",
            0.40,
            symbol_name="jv_kind_name",
            chunk_type="function",
            text="const char* jv_kind_name(jv_kind k)",
        ),
        _cand(
            "src/jv.h",
            0.20,
            symbol_name=None,
            chunk_type="text",
            text="typedef enum {\n  JV_KIND_NULL,\n} jv_kind;\n",
        ),
        _cand("src/jv_kind.c", 0.30, text="int x;"),  # named after it, declares nothing
        _cand("docs/jv_kind.md", 0.50, text="# jv_kind"),  # a page documents it
    ]
    assert _order(signals.apply(cands, "jv_kind", Weights())) == [
        "src/jv.h",
        "src/jv_kind.c",
        "src/jv.c",
        "docs/jv_kind.md",
    ]


def test_a_ci_question_lifts_the_pipelines_and_keeps_them_in_place() -> None:
    cands = [
        _cand("crates/build/src/lib.rs", 0.40),
        _cand(".github/workflows/test-release.yaml", 0.30, lang="yaml"),
    ]
    assert (
        _order(signals.apply(cands, "ci: use m1 macos", Weights()))[0]
        == ".github/workflows/test-release.yaml"
    )
    again = [
        _cand("crates/build/src/lib.rs", 0.40),
        _cand(".github/workflows/test-release.yaml", 0.30, lang="yaml"),
    ]
    assert _order(signals.apply(again, "use m1 macos", Weights()))[0] == "crates/build/src/lib.rs"


def test_a_file_named_by_rare_words_of_the_question_rises_and_a_common_one_little() -> None:
    cands = [
        _cand("src/render.ts", 0.40),
        _cand("cli/src/api/pre-publish.ts", 0.35),
        *(_cand(f"src/subspace/Subspace{n}.ts", 0.36) for n in ("", "s", "Config")),
    ]
    found = signals.apply(
        cands, "validate exports before pre-publish of a subspace", Weights(file_evidence=0.0)
    )
    assert _order(found)[0] == "cli/src/api/pre-publish.ts"
    lifts = {c.path: sum(m["change"] for m in c.moved if m["signal"] == "filename") for c in found}
    assert lifts["cli/src/api/pre-publish.ts"] > 2 * lifts["src/subspace/Subspace.ts"] > 0


def test_tests_stay_in_place_when_the_question_asks_for_them_and_examples_move_down_less() -> None:
    def cands() -> list[Candidate]:
        return [
            _cand("src/router.test.ts", 0.40),
            _cand("examples/router/app.ts", 0.39),
            *(_cand(f"src/r{n}.ts", 0.30 - n / 1000) for n in range(24)),
        ]

    asked = ranking.rank(
        signals.apply(cands(), "test: the router", Weights()),
        limit=26,
        per_file=1,
        include_tests=False,
        asks=frozenset({"test"}),
    )
    assert asked[0].candidate.path == "src/router.test.ts"
    plain = [
        k.candidate.path
        for k in ranking.rank(
            signals.apply(cands(), "the router", Weights()), limit=26, per_file=1, include_tests=False
        )
    ]
    # a change request edits examples with the code they show: one source file goes before it;
    # a test goes DEMOTION (20) file places down, the example's among them
    assert plain.index("examples/router/app.ts") == 1 and plain.index("src/router.test.ts") == 20


def test_a_single_header_copy_moves_down_like_a_test() -> None:
    cands = [
        _cand("single_include/nlohmann/json.hpp", 0.5),
        _cand("include/nlohmann/detail/input/lexer.hpp", 0.3),
    ]
    assert _order(signals.apply(cands, "where are comments skipped", Weights()))[0].startswith("include/")


def test_documentation_examples_are_examples() -> None:
    """FastAPI keeps its docs' programs in docs_src/ (464 files beside 56 of its own): they call
    the API the way a question names it, and the library is the answer."""
    assert ranking.role_of("docs_src/dependencies/tutorial008.py") == "example"
    assert ranking.role_of("doc_src/intro.py") == "example"
    assert ranking.role_of("fastapi/dependencies/utils.py") == "source"
    assert ranking.role_of("src/docs_srcset.ts") == "source"


def test_gos_testdata_is_tests() -> None:
    assert ranking.role_of("internal/lsp/testdata/rename/a.go") == "test"
    assert ranking.role_of("testdata/template/hello.tmpl") == "test"
    assert ranking.role_of("internal/testdatabase/conn.go") == "source"


def test_a_bundled_library_moves_down_like_a_copy() -> None:
    """spdlog bundles fmt's headers (include/spdlog/fmt/bundled/: half its chunks): a question
    about spdlog is about spdlog's own code, which a bundled library's many matching chunks outscore."""
    cands = [
        _cand("include/spdlog/fmt/bundled/format.h", 0.5),
        _cand("include/spdlog/pattern_formatter-inl.h", 0.3),
    ]
    assert _order(signals.apply(cands, "how is a message formatted", Weights()))[0].startswith("include/spdlog/p")
    assert ranking.role_of("include/spdlog/fmt/bundled/format.h") == "copy"
    assert ranking.role_of("src/bundler/index.ts") == "source"


@pytest.mark.parametrize(
    ("name", "text", "declared"),
    [
        ("emnapi", '  "dependencies": {\n    "emnapi": "^1.1.0",\n', True),
        ("emnapi", '  "devDependencies": {\n    "@emnapi/core": "^1.1.0",\n', False),  # another package
        ("emnapi", '  "scripts": {\n    "build": "emnapi build --release"\n', False),  # runs it
        ("ctor", '[dependencies]\nctor = "0.2"\n', True),
        ("ctor", "[dependencies]\nctor.workspace = true\n", True),
        ("ctor", '[dependencies.ctor]\nversion = "0.2"\n', True),
        ("ctor", '[dependencies]\nctor-lite = "0.1"\n', False),
        ("github.com/spf13/cobra", "require (\n\tgithub.com/spf13/cobra v1.8.0\n)\n", True),
        ("jsoup", "<dependency>\n  <artifactId>jsoup</artifactId>\n", True),
    ],
)
def test_what_a_manifest_chunk_declares(name: str, text: str, declared: bool) -> None:
    assert named.declares(text, name) is declared


def test_a_short_questions_lexical_only_hits_weigh_half() -> None:
    """gson, "how are enum values mapped to json strings": the lexical list ranked first the
    reflective adapter (it says "values" and "json" most), which the model ranked nowhere; the
    model ranked the enum adapter, the lexical list too but lower. The lexical-only hit led."""
    enum = "gson/internal/bind/EnumTypeAdapter.java"
    reflective = "gson/internal/bind/ReflectiveTypeAdapterFactory.java"
    waiting = "gson/internal/bind/NewAdapter.java"  # stored by phase one, no vector yet

    def cands(pending: bool = False) -> list[Candidate]:
        def cand(
            path: str, fused: float, dense: int | None, lexical: int | None, **payload: Any
        ) -> Candidate:
            c = _cand(path, fused, **payload)
            return replace(c, dense_rank=dense, lexical_rank=lexical, moved=[])

        return [
            cand(reflective, 0.20, None, 1),
            cand(enum, 0.15, 4, 14),
            cand("gson/stream/JsonReader.java", 0.12, None, 3),
            cand("gson/JsonObject.java", 0.10, 6, 9),
            *([cand(waiting, 0.22, None, 1, dense_pending=True)] if pending else []),
        ]

    short = "how are enum values mapped to json strings"
    off = candidates.switched_off(Weights(), ["lexical-only"])
    assert _order(signals.apply(cands(), short, off))[0] == reflective
    found = signals.apply(cands(), short, Weights())
    assert _order(found)[0] == enum
    assert next(c for c in found if c.path == reflective).moved[0]["signal"] == "lexical-only"
    assert not any(m["signal"] == "lexical-only" for m in next(c for c in found if c.path == enum).moved)
    # a longer question's words are surer, a name is the lexical list's, a change request is not a question
    for text in (
        "how are enum constant values mapped to json strings and back when a serialized name annotation is set",
        "where is EnumTypeAdapter",
        "Fix enum values mapped to json strings",
    ):
        moved = [m["signal"] for c in signals.apply(cands(), text, Weights()) for m in c.moved]
        assert "lexical-only" not in moved, text
    # a chunk still waiting for its vector has no dense rank to miss: it keeps its place
    found = signals.apply(cands(pending=True), short, Weights())
    assert _order(found)[0] == waiting


def test_a_short_question_weighs_a_files_matching_chunks_over_a_word_of_its_name() -> None:
    """express, "where are requests handed off to the router": `request.js`, one weak chunk, rose
    above `application.js` (two chunks that match) because "requests" is its whole name. A short
    question's common word says little about which file it is; a file whose chunks match is its
    subject. A longer question keeps the file name's evidence."""

    def cands() -> list[Candidate]:
        def cand(path: str, fused: float, dense: int, lexical: int, ordinal: int = 1) -> Candidate:
            return replace(_cand(path, fused, ordinal), dense_rank=dense, lexical_rank=lexical, moved=[])

        return [
            cand("test/Router.js", 0.20, 1, 2),
            cand("lib/request.js", 0.030, 30, 30),
            cand("lib/application.js", 0.045, 23, 40),
            cand("lib/application.js", 0.035, 28, 44, ordinal=2),
            *(cand(f"lib/other{n}.js", 0.02 - n / 1000, 40 + n, 50 + n) for n in range(5)),
        ]

    short = "where are requests handed off to the router"
    off = candidates.switched_off(Weights(), ["short"])
    assert _order(signals.apply(cands(), short, off))[0] == "lib/request.js"
    assert _order(signals.apply(cands(), short, Weights()))[0] == "lib/application.js"
    longer = "where are incoming requests handed off to the router after the app settings and the view engine are set"
    found = signals.apply(cands(), longer, Weights())
    assert any(m["signal"] == "filename" for c in found if c.path == "lib/request.js" for m in c.moved)


def test_an_older_versions_copy_goes_below_the_newer_one_it_outscores_twice() -> None:
    """zod's v3 says a question's words as the v4 beside it does, and its long `types.ts` gathers
    more of them: at x0.5 `src/v3/types.ts` kept second place above v4's `core.ts` and `schemas.ts`
    ("why does parse throw ... parseAsync ...": the hand-written phrase 0.601). An older copy is the
    answer only when the query names its version."""
    from monodex.indexer.rank import kinds

    cands = [_cand("packages/zod/src/v3/types.ts", 0.26), _cand("packages/zod/src/v4/core/core.ts", 0.12)]
    kinds.apply_older(cands, "why does parse throw when my refinement returns a promise", Weights())
    assert _order(cands) == ["packages/zod/src/v4/core/core.ts", "packages/zod/src/v3/types.ts"]
    named_v3 = [_cand("packages/zod/src/v3/types.ts", 0.26), _cand("packages/zod/src/v4/core/core.ts", 0.12)]
    kinds.apply_older(named_v3, "why does v3 parse throw when my refinement returns a promise", Weights())
    assert _order(named_v3)[0] == "packages/zod/src/v3/types.ts"


def test_an_installers_language_files_are_one_translated_module() -> None:
    """tauri's NSIS installer keeps its strings in `nsis/languages/<Language>.nsh`, eighteen copies
    named by the language's English name: a title with "downgrade" listed `Spanish.nsh` third. They
    take one slot, English standing for them; a programming language's name is no locale."""
    loc = "crates/tauri-bundler/src/bundle/windows/nsis/languages"
    assert copies.locale_of(f"{loc}/Spanish.nsh") == (loc, "es")
    assert copies.locale_of(f"{loc}/SimpChinese.nsh") == (loc, "zh")
    assert copies.locale_of("Languages/German.isl") == ("Languages", "de")
    assert copies.locale_of("src/languages/Swift.ts") is None
    assert copies.locale_of("docs/languages/Overview.md") is None
    # the file that stands for the folder, when no list ranked it (read/search.py's stand-ins)
    assert copies.sibling_in(f"{loc}/Spanish.nsh", "en") == f"{loc}/English.nsh"
    assert copies.sibling_in("src/locales/el.ts", "en") == "src/locales/en.ts"
    assert copies.sibling_in("src/checks.ts", "en") is None
    cands = [
        _cand(f"{loc}/Spanish.nsh", 0.30),
        _cand("crates/tauri-bundler/src/bundle/windows/nsis/installer.nsi", 0.25),
        _cand(f"{loc}/German.nsh", 0.20),
        _cand(f"{loc}/English.nsh", 0.10),
    ]
    kept = ranking.rank(cands, limit=10, per_file=1, include_tests=False)
    assert [(k.candidate.path, k.also) for k in kept] == [
        (f"{loc}/English.nsh", [f"{loc}/Spanish.nsh", f"{loc}/German.nsh"]),
        ("crates/tauri-bundler/src/bundle/windows/nsis/installer.nsi", []),
    ]


def _chunk(symbol: str | None, chunk_type: str | None, text: str) -> dict[str, Any]:
    return {
        "relative_path": "src/sse.rs",
        "lang": "rust",
        "symbol_name": symbol,
        "chunk_type": chunk_type,
        "text": text,
    }


def test_the_declaration_stands_for_its_file_before_impls_members_and_namesakes() -> None:
    declaration = _chunk("KeepAlive", "struct", "pub struct KeepAlive {\n    interval: Duration,\n}")
    declared_in_text = _chunk(
        None, None, "/// Keeps the stream alive.\n#[derive(Debug)]\npub struct KeepAlive {"
    )
    namesake = _chunk("tests.keep_alive", "function", "fn keep_alive() {\n    let k = KeepAlive::new();\n}")
    impl = _chunk("impl KeepAlive", "impl", "impl Default for KeepAlive {\n    fn default() -> Self {}\n}")
    member = _chunk("KeepAlive.interval", "method", "pub fn interval(mut self, time: Duration) -> Self {")
    unrelated = _chunk("Sse", "struct", "pub struct Sse<S> {\n    stream: S,\n}")
    tiers = [
        named.stand_tier(c, "KeepAlive")
        for c in (declaration, declared_in_text, namesake, impl, member, unrelated)
    ]
    assert tiers == [4, 3, 2, 1, 1, 0]
    # a Swift extension declares no type: the `protocol DataPreprocessor` above it does
    swift = {
        "relative_path": "Sources/Serializer.swift",
        "lang": "swift",
        "symbol_name": None,
        "chunk_type": None,
    }
    extension = {**swift, "text": "extension DataPreprocessor where Self == PassthroughPreprocessor {\n}"}
    protocol = {
        **swift,
        "text": "public protocol DataPreprocessor: Sendable {\n    func preprocess(_ data: Data) throws -> Data\n}",
    }
    assert (
        named.stand_tier(protocol, "DataPreprocessor") > named.stand_tier(extension, "DataPreprocessor") > 0
    )


def test_a_path_with_a_line_lists_its_file_with_the_chunk_holding_that_line() -> None:
    w = Weights()
    found = [
        _cand("src/router.ts", 0.50, ordinal=1, start_line=1, end_line=40),
        _cand("src/router.ts", 0.20, ordinal=2, start_line=41, end_line=90),
        _cand("src/node.ts", 0.90, start_line=1, end_line=30),
    ]
    kept = ranking.rank(signals.apply(found, "src/router.ts:42:7", w), limit=2, per_file=1, include_tests=False)
    assert [(k.candidate.path, k.candidate.hit.payload["chunk_ordinal"]) for k in kept] == [
        ("src/router.ts", 2),
        ("src/node.ts", 1),
    ]


def test_a_questions_type_declaration_that_is_mostly_comments_goes_below_the_code() -> None:
    """ky: "how are failed requests retried": `types/retry.ts` documents every retry option in
    prose the question's words match; `core/Ky.ts` retries in code. A function's comment, or a
    type that is mostly code, keeps its score: those are answers as often."""
    prose = "\n".join(["/**", " * Retry a failed request this many times.", " * @default 2", " */"] * 3)
    documented = prose + "\nexport type RetryOptions = {limit?: number};"
    typed = "export type RetryOptions = {\n  limit?: number;\n  methods?: string[];\n};\n// the limit"
    retry, ky, code_type, helper = (
        "source/types/retry.ts",
        "source/core/Ky.ts",
        "source/types/options.ts",
        "source/utils/delay.ts",
    )

    def cands() -> list[Candidate]:
        return [
            _cand(retry, 0.30, chunk_type="type", text=documented),
            _cand(ky, 0.25, chunk_type="class", text="class Ky { async #retry() { return this.#fetch() } }"),
            _cand(code_type, 0.24, chunk_type="interface", text=typed),
            _cand(helper, 0.20, chunk_type="function", text=prose + "\nexport function delay() {}"),
        ]

    question = "how are failed requests retried?"
    found = signals.apply(cands(), question, NEUTRAL)
    assert _order(found)[:2] == [ky, code_type]
    (moved,) = next(c for c in found if c.path == retry).moved
    assert moved["signal"] == "doc-type" and moved["why"] == "a type declaration, 12 of its 13 lines comments"
    assert not any(c.moved for c in found if c.path in (code_type, helper))  # code, or a function's comment
    # one name, a change request, the signal off: the order the lists gave
    for text, w in (
        ("RetryOptions", NEUTRAL),
        ("Fix failed requests retried twice", NEUTRAL),
        (question, candidates.switched_off(NEUTRAL, ["doc-type"])),
    ):
        assert _order(signals.apply(cands(), text, w))[0] == retry, text


def test_a_questions_header_goes_below_the_source_file_that_implements_it() -> None:
    """leveldb: "how are concurrent writers grouped into one batch?" `db/db_impl.h` declares the
    writer queue in the question's words; `db/db_impl.cc` groups them. A header-only library's
    header (fmt's `format.h`, longer than its `src/format.cc`) is the code and keeps its score."""
    header, source, other = "db/db_impl.h", "db/db_impl.cc", "db/write_batch.cc"

    def cands() -> list[Candidate]:
        return [
            _cand(header, 0.30, chunk_count=3),
            _cand(source, 0.20, chunk_count=40),
            _cand(other, 0.18, chunk_count=10),
            _cand("include/fmt/format.h", 0.17, chunk_count=90),
            _cand("src/format.cc", 0.16, chunk_count=8),
        ]

    question = "how are concurrent writers grouped into one batch?"
    found = signals.apply(cands(), question, NEUTRAL)
    assert _order(found)[:2] == [source, other]
    (moved,) = next(c for c in found if c.path == header).moved
    assert moved == {"signal": "header", "change": -0.15, "why": "a header, and db/db_impl.cc implements it"}
    assert not next(c for c in found if c.path == "include/fmt/format.h").moved
    # one name, a change request, a phrase, the signal off: the order the lists gave
    for text, w in (
        ("DBImpl", NEUTRAL),
        ("Fix concurrent writers grouped twice", NEUTRAL),
        ("concurrent writers grouped into one batch", NEUTRAL),
        (question, candidates.switched_off(NEUTRAL, ["header"])),
    ):
        assert _order(signals.apply(cands(), text, w))[0] == header, text



def test_a_header_only_librarys_implementation_header_implements_its_header() -> None:
    """CLI11 keeps `Option.hpp`'s code in `impl/Option_inl.hpp`, spdlog `logger.h`'s in
    `logger-inl.h`, a template library in `.ipp` / `.tcc` files: each is the source file of its
    header, and the header's declarations say a question's words before it."""
    question = "which value wins when an option is given several times?"
    for header, implementation in (
        ("include/CLI/Option.hpp", "include/CLI/impl/Option_inl.hpp"),
        ("include/spdlog/logger.h", "include/spdlog/logger-inl.h"),
        ("include/fmt/format.h", "include/fmt/format-inl.h"),
        ("include/boost/asio/strand.hpp", "include/boost/asio/impl/strand.ipp"),
    ):
        cands = [_cand(header, 0.30, chunk_count=5), _cand(implementation, 0.20, chunk_count=30)]
        found = signals.apply(cands, question, NEUTRAL)
        assert _order(found)[0] == implementation, header
        assert not next(c for c in found if c.path == implementation).moved  # it is no header to move
        # right below it, not below the files x0.5 would let pass: a question's answer is often both
        three = [
            _cand(header, 0.30, chunk_count=5),
            _cand(implementation, 0.20, chunk_count=30),
            _cand("include/other.hpp", 0.17),
        ]
        assert _order(signals.apply(three, question, NEUTRAL)) == [implementation, header, "include/other.hpp"]
        # a header longer than its implementation is the code itself, as fmt's format.h is; an
        # implementation far weaker than its header (spdlog's base_sink-inl.h for "where is the base
        # class that wraps a sink's calls in a mutex") leaves the header first
        longer = [_cand(header, 0.30, chunk_count=60), _cand(implementation, 0.20, chunk_count=30)]
        assert _order(signals.apply(longer, question, NEUTRAL))[0] == header
        weaker = [_cand(header, 0.30, chunk_count=5), _cand(implementation, 0.10, chunk_count=30)]
        assert _order(signals.apply(weaker, question, NEUTRAL))[0] == header

def test_a_question_about_a_declaration_or_a_layout_keeps_its_header() -> None:
    """jq: "where is the list of virtual machine opcodes and the layout of a compiled function"
    asks for `src/bytecode.h`, which declares that layout; `src/bytecode.c` (longer) prints it."""
    header, source = "src/bytecode.h", "src/bytecode.c"

    def cands() -> list[Candidate]:
        return [_cand(header, 0.30, chunk_count=3), _cand(source, 0.20, chunk_count=12)]

    for question in (
        "where is the layout of a compiled function?",
        "where is the internal state of a compression stream defined?",
        "which struct holds the bytecode of a function?",
        "where are the opcodes declared?",
        "what are the memory layouts of the two tables?",
    ):
        found = signals.apply(cands(), question, NEUTRAL)
        assert _order(found)[0] == header, question
        assert not next(c for c in found if c.path == header).moved, question
    # the same words asked of what the code does move the header down
    assert _order(signals.apply(cands(), "how is a compiled function run?", NEUTRAL))[0] == source


def test_a_questions_hit_in_the_repositorys_tooling_goes_after_the_code() -> None:
    """zod's `scripts/compile-fuzz.ts` builds every schema type to fuzz the compiler: it says a
    question's words more often than the code the question is about (issue 34)."""
    w = Weights(name_coverage=0.0)
    question = "how does object parsing use generated code?"
    for path in (
        "scripts/compile-fuzz.ts",
        "tools/generate_tables.py",
        "xtask/src/main.rs",
        "common/scripts/install-run.js",  # Rush's
        "packages/zod/scripts/build.ts",  # a workspace package's
    ):
        found = signals.apply([_cand(path, 0.30), _cand("src/v4/core/schemas.ts", 0.10)], question, w)
        kept = ranking.rank(found, limit=10, per_file=1, include_tests=False, asked=True)
        assert [k.candidate.path for k in kept][0] == "src/v4/core/schemas.ts", path
        assert found[0].moved[0]["signal"] == "tooling"
    # the product's own scripts folder, a question about the scripts or naming one, a change
    # request that may edit them: left in place
    for path, text in (
        ("src/scripts/run.ts", question),  # a package manager's `run` command
        ("scripts/compile-fuzz.ts", "where is the fuzzing script for the compiler?"),
        ("scripts/release.ts", "how is a release published?"),
        ("scripts/compile-fuzz.ts", "what does compile-fuzz check?"),
        ("scripts/compile-fuzz.ts", "Fix object parsing in generated code"),
    ):
        found = signals.apply([_cand(path, 0.30)], text, w)
        assert found[0].moved == [], (path, text)


def test_fuzz_targets_are_tests_and_tree_shaking_bundles_benchmarks() -> None:
    assert ranking.role_of("fuzz/fuzz_targets/from_slice.rs") == "test"  # cargo-fuzz
    assert ranking.role_of("tokio/fuzz/fuzz_targets/fuzz_linked_list.rs") == "test"
    assert ranking.role_of("packages/treeshake/zod-mini-string.ts") == "benchmark"  # a bundle-size check
    assert ranking.role_of("src/fuzzy/match.rs") == ranking.SOURCE
    assert ranking.role_of("src/internal/fuzz/engine.go") == ranking.SOURCE  # a fuzzing engine's code


def test_a_name_only_a_benchmark_or_a_test_declares_is_listed_there_first() -> None:
    """zod's `deepEq` is a helper of `packages/bench/`: asked for by name, its declaration is the
    answer, not the source files that say the word. A source file that declares the name keeps
    the others after it; a file only named after the name (an example) declares nothing."""
    bench = _cand("packages/bench/compile-matrix.ts", 0.20, text="function deepEq(a: unknown, b: unknown) {\n}\n")
    user = _cand("src/v4/core/util.ts", 0.30, text="return deepEq(left, right);\n")
    other = _cand("src/v4/core/checks.ts", 0.25, text="const eq = deepEq;\n")
    found = signals.apply([bench, user, other], "deepEq", Weights())
    assert _order(found)[0] == "packages/bench/compile-matrix.ts"
    assert next(c for c in found if c.path == bench.path).defines_asked
    # ... but after a source file that declares it too
    source = _cand("src/v4/core/equal.ts", 0.10, text="export function deepEq(a: unknown, b: unknown) {\n}\n")
    again = [_cand(c.path, c.fused, text=c.hit.payload["text"]) for c in (bench, user, other)]
    order = _order(signals.apply([*again, source], "deepEq", Weights()))
    assert order[0] == "src/v4/core/equal.ts" and order[-1] == "packages/bench/compile-matrix.ts"
    # an example named after the name only uses it: it moves down as examples do
    example = _cand("docs/examples/deepEq.ts", 0.40, text="console.log(deepEq(1, 1));\n")
    listed = signals.apply([example, _cand(bench.path, 0.20, text=bench.hit.payload["text"])], "deepEq", Weights())
    assert _order(listed)[0] == "packages/bench/compile-matrix.ts"
