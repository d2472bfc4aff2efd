"""The evaluation sets in bench/eval/ are well-formed, and the tune/test split is fixed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from monodex.indexer.policy import crawlpolicy

BENCH = Path(__file__).resolve().parents[1] / "bench"
SETS = sorted((BENCH / "eval").glob("*.json"))
DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


def _quality(monkeypatch: pytest.MonkeyPatch, *argv: str) -> ModuleType:
    return _bench(monkeypatch, "quality.py", *argv)


def _bench(monkeypatch: pytest.MonkeyPatch, script: str, *argv: str) -> ModuleType:
    # quality.py reads --split from sys.argv; pytest's own arguments must not leak into it.
    monkeypatch.setattr("sys.argv", [script, *argv])
    # It also puts bench/ on sys.path and imports its _common.py: both are undone after the test,
    # so bench/hooks.py can't shadow anything for the other tests.
    monkeypatch.setattr("sys.path", [*sys.path])
    monkeypatch.setitem(sys.modules, "_common", None)  # undone last: the key ends as it was
    monkeypatch.delitem(sys.modules, "_common")  # a fresh import of bench/_common.py
    spec = importlib.util.spec_from_file_location(f"bench_{Path(script).stem}", BENCH / script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_there_are_sets_for_three_repositories() -> None:
    assert {p.name for p in SETS} >= {"sparo-prs.json", "rushstack-prs.json", "pnpm-prs.json"}


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.name)
def test_a_set_is_well_formed(path: Path) -> None:
    doc: dict[str, Any] = json.loads(path.read_text())
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", doc["repo"]), "repo is owner/name, not a machine path"
    assert re.fullmatch(r"[0-9a-f]{40}", doc["commit"])
    ids = [q["id"] for q in doc["queries"]]
    assert ids and len(ids) == len(set(ids)), "query ids are unique within a set"
    for q in doc["queries"]:
        assert q["query"].strip()
        assert q["relevant"], f"{q['id']} has no relevant file"
        for rel in q["relevant"]:
            assert isinstance(rel, str) and rel and not rel.startswith("/") and "\\" not in rel
        if path.stem.endswith("-prs"):
            assert DATE.fullmatch(q["date"]), "PR queries carry their UTC landing date (time split)"


def test_every_query_gets_a_split_and_the_third_repository_is_all_test(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    quality = _quality(monkeypatch, "--split", "all")
    for name in quality.TARGETS:
        qs = quality.queries(name)
        assert qs, name
        assert {q["split"] for q in qs} <= {"tune", "test"}
        if name in quality.HELD_OUT:
            assert {q["split"] for q in qs} == {"test"}
        else:  # a hash splits a set roughly in half, so both halves are there
            assert {q["split"] for q in qs} == {"tune", "test"}
    assert "pnpm" in quality.HELD_OUT
    # The built-in-policy variants score the same queries, in the same halves (issue 23).
    for variant, of in quality.SAME_QUERIES.items():
        assert quality.queries(variant) == quality.queries(of)
        assert (variant in quality.HELD_OUT) == (of in quality.HELD_OUT)
        assert quality.TARGETS[variant][:2] == quality.TARGETS[of][:2] and quality.TARGETS[variant][2] is None
    assert quality.queries("pnpm") == _quality(monkeypatch, "--split", "test").queries("pnpm")
    assert _quality(monkeypatch, "--split", "tune").queries("pnpm") == []


def test_split_of_is_a_fixed_function_of_the_id(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first, second = _quality(monkeypatch), _quality(monkeypatch)
    ids = [f"pr-{n}" for n in range(200)]
    assert [first.split_of(i) for i in ids] == [second.split_of(i) for i in ids]
    # Pinned values: a change to the hash would silently move queries between tune and test.
    pinned = {"pr-90": "test", "pr-5949": "tune", "sparo-h01": "tune", "sparo-h02": "test"}
    assert {i: first.split_of(i) for i in pinned} == pinned
    # pr-14080 hashes to tune, but the third repository was never tuned on.
    assert first.split_of("pr-14080") == "tune"
    assert first.split_of("pr-14080", "pnpm") == "test"
    assert {first.split_of(i, "pnpm") for i in ids} == {"test"}


def test_a_held_out_target_under_tune_stops_before_any_crawl(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    quality = _quality(monkeypatch, "pnpm")
    monkeypatch.setattr(quality, "evaluate", lambda *a: pytest.fail("it crawled"))
    with pytest.raises(SystemExit, match="held out: run it with --split test"):
        quality.main()


def test_the_pnpm_crawl_part_keeps_the_cli_package_and_drops_the_rust_side(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _, _, part = _quality(monkeypatch).TARGETS["pnpm"]
    policy = crawlpolicy.parse(part, "bench/quality.py pnpm")
    assert policy.should_crawl("pnpm11/pnpm/src/main.ts")  # the CLI package itself
    assert policy.should_crawl("pnpm11/config/reader/test/index.ts")  # tests are ranked, not dropped
    assert policy.should_crawl("README.md")
    for dropped in ("pnpm/npm/pnpm/install.ts", "pnpr/client/src/index.ts", ".changeset/x.md", "a/b.d.ts"):
        assert not policy.should_crawl(dropped), dropped


def test_the_doc_sanity_sets_are_kept_apart_from_the_split_and_the_figures(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    docs = {
        p.stem.removesuffix("-doc") for p in SETS if json.loads(p.read_text()).get("kind") == "doc-sanity"
    }
    assert docs == {"sparo", "rushstack", "pnpm"}
    for split in ("tune", "test", "all"):
        quality = _quality(monkeypatch, "--split", split)
        for name in quality.TARGETS:
            assert not [q for q in quality.queries(name) if q["set"].endswith("-doc")], (name, split)
            if quality.query_set(name) not in docs:  # napi-rs has PR titles only (issue 23)
                assert quality.sanity_queries(name) == []
                continue
            sanity = quality.sanity_queries(name)
            total = len(
                json.loads((BENCH / "eval" / f"{quality.query_set(name)}-doc.json").read_text())["queries"]
            )
            assert len(sanity) == total, "all of a sanity set is scored, whatever the split"
            assert {q["split"] for q in sanity} == {"sanity"}
    # The held-out target still refuses --split tune before any crawl, doc set or not.
    assert _quality(monkeypatch, "--split", "tune").queries("pnpm") == []


def test_the_sanity_line_reads_as_issue_14_states_the_floor(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    quality = _quality(monkeypatch)
    rows = [quality.metrics(["a.ts", "b.ts"], {"b.ts"}), quality.metrics(["c.ts"], {"b.ts"})]
    assert quality.sanity_line(rows) == "doc-sanity (2): R@10 0.500 MRR@10 0.250"


def test_answers_ranks_a_question_with_the_history_before_its_own_change(monkeypatch, git_repo) -> None:  # type: ignore[no-untyped-def]
    """`bench/answers.py --history asof`: a pull-request question's co-change counts are those of
    the changes that landed before its own (by its origin's short oid), never its own change's."""
    answers = _bench(monkeypatch, "answers.py")
    repo = git_repo({"src/base.ts": "0\n", "src/other.ts": "0\n"})
    repo.write("src/a.ts", "a\n")
    repo.write("src/b.ts", "b\n")
    second = repo.commit("Add a and b (#2)")
    repo.write("src/a.ts", "a2\n")
    repo.write("src/b.ts", "b2\n")
    third = repo.commit("Change a and b (#3)")
    history = answers.History.as_of(repo.path, third, lambda path: path.endswith(".ts"))
    q2, q3 = ({"id": f"pr-{n}", "origin": f"#{n} {oid[:10]}"} for n, oid in ((2, second), (3, third)))
    assert history.at(q2) < history.at(q3)
    assert history.of(q2).counts(["src/b.ts"], ["src/a.ts"]) == ({}, {})  # not its own change
    assert history.of(q3).counts(["src/b.ts"], ["src/a.ts"])[1] == {("src/a.ts", "src/b.ts"): 1}
    with pytest.raises(SystemExit, match="pr-9: its change 0123456789 is not on the set's first-parent"):
        history.at({"id": "pr-9", "origin": "#9 0123456789"})
    assert answers.History().of(q3) is None  # --history off: no counts


def test_every_hand_written_and_short_set_is_asked_again_as_phrases(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/answers.py`'s `phrase-<set>` targets: the same questions less their opening question
    words, in the same halves (a held-out repository's phrases are held out too)."""
    answers = _bench(monkeypatch, "answers.py")
    t = answers.targets()
    for name in [n for n, x in t.items() if x["group"] in ("hand", "short")]:
        assert t[f"phrase-{name}"] == {**t[name], "group": "phrase", "phrase": True}
    assert answers.as_phrase("how does the client retry a failed request?") == "client retry a failed request"
    assert answers.as_phrase("Where are routes matched") == "routes matched"
    assert answers.as_phrase("which component owns the URLSession") == "component owns the URLSession"
    assert answers.as_phrase("where is Router?") == "where is Router?"  # one word left: kept whole
    assert answers.split_of("h1", "phrase-short-honojs+hono") == "test"
    assert answers.split_of("h1", "phrase-gin-gonic+gin") == answers.split_of("h1", "gin-gonic+gin")


def test_a_second_set_asks_the_same_index_as_its_first_set(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/hand2/`: later sets for repositories of `hand/`, at the same commit (one index
    answers both), ten questions of each kind, ids apart from the first set's, split by id."""
    answers = _bench(monkeypatch, "answers.py")
    t = answers.targets()
    second = [n for n, x in t.items() if x["group"] == "second"]
    assert second
    for name in second:
        first = t[name.removeprefix("second-")]
        assert {k: t[name][k] for k in ("catalog", "mirror", "commit")} == {
            k: first[k] for k in ("catalog", "mirror", "commit")
        }
        queries = json.loads(Path(t[name]["file"]).read_text())["queries"]
        kinds = [q["kind"] for q in queries]
        assert {k: kinds.count(k) for k in set(kinds)} == {"concept": 10, "architecture": 10, "symbol": 10}
        first_ids = {q["id"] for q in json.loads(Path(first["file"]).read_text())["queries"]}
        assert not first_ids & {q["id"] for q in queries}
        # a held-out repository's second set is held out too: never looked at, all test
        held = name.removeprefix("second-") in answers.HELD_OUT
        assert {answers.split_of(q["id"], name) for q in queries} == ({"test"} if held else {"tune", "test"})
        assert f"phrase-{name}" not in t  # the phrase sets are the first sets' alone


def test_a_third_set_asks_repositories_of_its_own_each_under_a_catalog_of_its_own(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/hand3/`: eight repositories no other set asks, eight questions of each kind,
    split by id. Every target's catalog names one mirror: serde-rs/json's index under `json`
    would have re-pointed nlohmann/json's catalog at serde's clone and answered both from one."""
    answers = _bench(monkeypatch, "answers.py")
    t = answers.targets()
    _own_sets(answers, "third", 8, {"concept": 8, "architecture": 8, "symbol": 8})
    mirrors_of: dict[str, set[str]] = {}
    for x in t.values():
        mirrors_of.setdefault(x["catalog"], set()).add(x["mirror"])
    assert {c: m for c, m in mirrors_of.items() if len(m) > 1} == {}
    assert answers.catalog_of("serde-rs+json") != answers.catalog_of("nlohmann+json") == "json"


def test_a_fourth_set_asks_for_several_files_an_answer_spans(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/hand4/`: six repositories no other set asks, 8 concept, 8 architecture and 4
    symbol questions each, split by id; a concept or architecture answer is 2 files or more."""
    answers = _bench(monkeypatch, "answers.py")
    for queries in _own_sets(answers, "fourth", 6, {"concept": 8, "architecture": 8, "symbol": 4}):
        assert all(len(q["relevant"]) >= 2 for q in queries if q["kind"] != "symbol")


def test_a_fifth_set_is_never_tuned_on(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/hand5/`: four more repositories of several-file answers, written after the
    ranking constants were set: every question is `test`."""
    answers = _bench(monkeypatch, "answers.py")
    sets = _own_sets(answers, "fifth", 4, {"concept": 8, "architecture": 8, "symbol": 4}, halves={"test"})
    for queries in sets:
        assert all(len(q["relevant"]) >= 2 for q in queries if q["kind"] != "symbol")


def test_a_sixth_set_is_never_tuned_on(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/hand6/`: two polyglot repositories no other set asks, eight questions of each
    kind, written after the ranking constants were set: every question is `test`."""
    answers = _bench(monkeypatch, "answers.py")
    _own_sets(answers, "sixth", 2, {"concept": 8, "architecture": 8, "symbol": 8}, halves={"test"})


def test_the_pnpm_workspace_kind_has_a_tune_set_apart_from_its_held_out_sets(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`vue-older`: vue's changes before the 300 of its held-out set, asked of the same index
    (same repository and commit), every question `tune`, none of vue's ids, all landed earlier."""
    answers = _bench(monkeypatch, "answers.py")
    t = answers.targets()
    older, vue = t["vue-older"], t["vue"]
    assert {k: older[k] for k in ("catalog", "mirror", "commit")} == {k: vue[k] for k in ("catalog", "mirror", "commit")}
    tune = json.loads(Path(older["file"]).read_text())["queries"]
    test = json.loads(Path(vue["file"]).read_text())["queries"]
    assert {answers.split_of(q["id"], "vue-older") for q in tune} == {"tune"}
    assert {answers.split_of(q["id"], "vue") for q in test} == {"test"}
    assert not {q["id"] for q in tune} & {q["id"] for q in test}
    assert max(q["date"] for q in tune) < min(q["date"] for q in test)


def _own_sets(answers, group: str, repositories: int, kinds: dict[str, int], halves: set[str] | None = None) -> list[list[dict]]:  # type: ignore[no-untyped-def,type-arg]
    """Each set of `group`: `repositories` of them, on mirrors no other group asks, `kinds`
    questions of each kind, in `halves` (both by default); their questions."""
    t = answers.targets()
    names = [n for n, x in t.items() if x["group"] == group]
    assert len(names) == repositories
    # (the symbol sets, built from the code, ask every hand-written set's repository again)
    others = {x["mirror"] for x in t.values() if x["group"] not in (group, "symbols")}
    out = []
    for name in names:
        assert t[name]["mirror"] not in others
        queries = json.loads(Path(t[name]["file"]).read_text())["queries"]
        said = [q["kind"] for q in queries]
        assert {k: said.count(k) for k in set(said)} == kinds
        assert {answers.split_of(q["id"], name) for q in queries} == (halves or {"tune", "test"})
        out.append(queries)
    return out


@pytest.mark.parametrize(
    "path",
    sorted((BENCH / "eval").glob("hand*/*.json")) + sorted((BENCH / "eval").glob("short/*.json")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_a_hand_written_set_gives_each_answer_s_lines_in_its_relevant_files(path: Path) -> None:
    """The answers' lines (`"lines"`, scored as a benchmark of passages scores them) name only
    relevant files, with 1-based spans that start before they end."""
    doc: dict[str, Any] = json.loads(path.read_text())
    assert re.fullmatch(r"[0-9a-f]{40}", doc["commit"])
    ids = [q["id"] for q in doc["queries"]]
    assert ids and len(ids) == len(set(ids))
    for q in doc["queries"]:
        assert q["query"].strip() and q["relevant"] and q["kind"] in ("concept", "architecture", "symbol")
        if q["kind"] == "symbol":
            assert " " not in q["query"].strip(), f"{q['id']}: a symbol question is one name"
        spans = q.get("lines", {})
        assert set(spans) <= set(q["relevant"]), q["id"]
        for pairs in spans.values():
            assert pairs and all(1 <= a <= b for a, b in pairs), q["id"]


def test_histories_pin_what_the_pull_request_sets_pin_and_estimate_each_kind_by_its_mean(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """bench/histories.py: every pull-request set's repository (its own index: not vue-older, nor a
    subset's) at the commit bench/answers.py pins, every kind of the issue with a repository, and a
    kind's line the mean of its repositories' test halves with their range."""
    histories = _bench(monkeypatch, "histories.py")
    answers = _bench(monkeypatch, "answers.py")
    targets = answers.targets()
    shared = set(histories.HISTORIES) & set(targets)
    # a set asked of another's index, or of an index of one part of its repository, adds no history
    others = set(answers.SHARED_INDEX) | set(answers.SUBSETS)
    assert {"vue-older", "rushstack-apps", "rushstack-libraries"} <= others
    assert shared == {n for n, t in targets.items() if t["group"] == "pr"} - others
    for name in shared:
        _, mirror, commit = histories.HISTORIES[name]
        assert (targets[name]["mirror"], targets[name]["commit"]) == (mirror, commit), name
    kinds = [kind for kind, _, _ in histories.HISTORIES.values()]
    assert set(kinds) == set(histories.KINDS) == set(histories.NEEDED)
    assert kinds.count("polyglot") >= 2

    def answer(test: tuple[float, float], all_: tuple[float, float], bm25: tuple[float, float]) -> dict[str, Any]:
        def r(x: tuple[float, float]) -> dict[str, float]:
            return {"recall_at_10": x[0], "mrr_at_10": x[1], "questions": 10}

        return {
            "questions": {"tune": 10, "test": 10, "total": 20},
            "results": {"hybrid": {"tune": r(test), "test": r(test), "all": r(all_)}, "bm25": {"all": r(bm25)}},
        }

    rows = histories.kind_rows(
        {
            "napi-rs": answer((0.8, 0.7), (0.8, 0.6), (0.5, 0.4)),
            "neon": answer((0.4, 0.3), (0.5, 0.4), (0.4, 0.3)),
            "sparo": answer((0.9, 0.8), (0.9, 0.8), (0.8, 0.4)),
        }
    )
    assert rows == [
        ["polyglot", 2, "0.600 / 0.500", "0.400-0.800", "0.650 / 0.500", "0.450 / 0.350", "0.700 / 0.500"],
        ["small Rush", 1, "0.900 / 0.800", "0.900-0.900", "0.900 / 0.800", "0.800 / 0.400", "0.920 / 0.700"],
    ]


def test_a_symbol_set_is_built_from_the_code_alone(git_repo, monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/build_symbols.py`: names one indexed source file defines, in any language, that
    file the answer; a name two files define, a short or private one, a test's, a build output's
    and a macro are not asked. The same repository gives the same set every time."""
    repo = git_repo(
        {
            "src/router.py": "class Router:\n    def match_route(self, path):\n        return path\n",
            "src/a.py": "def shared_helper():\n    pass\n",
            "src/b.py": "def shared_helper():\n    pass\ndef go():\n    pass\ndef _private_thing():\n    pass\n",
            "tests/test_router.py": "def make_router_fixture():\n    pass\n",
            "server.go": "package x\n\ntype Server struct{}\n\nfunc (s *Server) ListenAndServe() error { return nil }\n",
            "db/version_edit.h": "namespace db {\nclass VersionEdit {\n public:\n  void AddFile(int l) {}\n};\n}\n",
            "db/version_edit.cc": "#include \"db/version_edit.h\"\nvoid Helper() EXCLUSIVE_LOCKS_REQUIRED(mu) {}\n",
            "node_modules/dep/index.js": "function vendoredThing() {}\n",
        },
        name="lib",
    )
    mirrors = tmp_path / "mirrors" / "acme+lib"
    mirrors.mkdir(parents=True)
    (mirrors / "repo").symlink_to(repo.path)
    monkeypatch.setenv("MONODEX_BENCH_MIRRORS", str(tmp_path / "mirrors"))
    build = _bench(monkeypatch, "eval/build_symbols.py")
    built = build.build("acme+lib", repo.head())
    asked = {q["query"]: q["relevant"] for q in built}
    assert asked == {
        "Router": ["src/router.py"],
        "match_route": ["src/router.py"],
        "Server": ["server.go"],
        "ListenAndServe": ["server.go"],
        "VersionEdit": ["db/version_edit.h"],
        "AddFile": ["db/version_edit.h"],
    }  # Helper: tree-sitter reads its EXCLUSIVE_LOCKS_REQUIRED(mu) as the name, a macro
    assert {q["kind"] for q in built} == {"symbol"} and len({q["id"] for q in built}) == len(built)
    assert build.build("acme+lib", repo.head()) == built


def test_every_symbol_set_is_held_out_and_asks_its_hand_written_sets_index(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`bench/eval/symbols/`: one set a hand-written repository, at that set's commit (one index
    answers both), 30 bare names, every question `test`."""
    answers = _bench(monkeypatch, "answers.py")
    t = answers.targets()
    sets = [n for n, x in t.items() if x["group"] == "symbols"]
    assert len(sets) >= 40
    for name in sets:
        same = [x for n, x in t.items() if x["mirror"] == t[name]["mirror"] and x["group"] != "symbols"]
        assert same and all(x["commit"] == t[name]["commit"] for x in same)
        queries = json.loads(Path(t[name]["file"]).read_text())["queries"]
        assert 10 <= len(queries) <= 30 and {q["kind"] for q in queries} == {"symbol"}
        assert all(len(q["relevant"]) == 1 and " " not in q["query"] for q in queries)
        assert {answers.split_of(q["id"], name) for q in queries} == {"test"}
