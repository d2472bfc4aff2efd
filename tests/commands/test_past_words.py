"""The past-words list end to end (issue 34): a crawl counts the words of each commit's subject
against the files it touched, and a hybrid search lifts the files earlier commits with the
query's words changed, even one whose code never says them and that neither the dense nor the
lexical list found, saying so in --explain. A history counted before the words fails nothing."""

from __future__ import annotations

import json
import sqlite3

from monodex.indexer.history.cochanges import db_path

from monodex.disk import paths
from monodex.main import main

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--explain", "--json", "--limit", "20")
DECOYS = 120  # more files than the dense list reads (2 x 50 chunks), each about requests


def _repo(git_repo):  # type: ignore[no-untyped-def]
    files = {"package.json": json.dumps({"name": "acme"})}
    files |= {
        f"src/decoy{i}.ts": f"// sends the outgoing requests of host {i}\nexport function send{i}(): void {{}}\n"
        for i in range(DECOYS)
    }
    files["src/gate.ts"] = "export const COLOR = 3;\n"  # says nothing of what it is for
    repo = git_repo(files, name="acme")
    for n, subject in enumerate(("Throttle outgoing requests per host", "fix: throttle bursts")):
        repo.write("src/gate.ts", f"export const COLOR = {4 + n};\n")
        repo.commit(subject)
    return repo


def _crawl(repo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err


def _gate(found):  # type: ignore[no-untyped-def]
    return next((r for r in found["results"] if r["relative_path"] == "src/gate.ts"), None)


def test_a_file_earlier_commits_describe_is_found_by_their_words(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo)
    _crawl(repo, run_json)
    code, found, err = run_json(*SEARCH, "--text", "throttle")
    assert code == 0, err
    assert found["mode"] == "hybrid"
    gate = _gate(found)
    assert gate is not None, [r["relative_path"] for r in found["results"]]
    explain = gate["explain"]
    assert explain["dense_rank"] is None and explain["lexical_rank"] is None  # joined by the third list
    why = [m["why"] for m in explain["signals"] if m["signal"] == "past-words"]
    assert why and "(2 with one of them)" in why[0], explain
    assert [m["change"] for m in explain["signals"] if m["signal"] == "past-words"] == [
        0.07
    ]  # 0.35 / (5 + 0)
    # a change request reads like the subjects the list is made of: lifted by how well its file
    # matches, the list's first by 0.15
    code, found, err = run_json(*SEARCH, "--text", "Throttle bursts per host")
    assert code == 0, err
    gate = _gate(found)
    assert gate is not None, [r["relative_path"] for r in found["results"]]
    lifts = [m["change"] for m in gate["explain"]["signals"] if m["signal"] == "past-words"]
    assert lifts == [0.15], gate["explain"]
    # the lexical mode ranks by the code's words alone
    code, found, err = run_json(*SEARCH, "--mode", "lexical", "--text", "throttle")
    assert code == 0, err
    assert _gate(found) is None


def test_a_history_counted_before_the_words_fails_nothing(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo)
    _crawl(repo, run_json)
    with sqlite3.connect(db_path(paths.resolve().state_dir, "acme")) as con:  # as an older monodex left it
        con.execute("DROP TABLE words")
        con.execute("DELETE FROM meta WHERE key = 'schema'")
    code, found, err = run_json(*SEARCH, "--text", "throttle")
    assert code == 0, err
    assert _gate(found) is None
    assert all(m["signal"] != "past-words" for r in found["results"] for m in r["explain"]["signals"])


def test_a_config_file_such_changes_edited_keeps_its_place_for_a_change_request(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    """tauri's covector `.changes/config.json` changes with every release fix: a request in those
    commits' words keeps it in place instead of moving it down as a config file it does not name;
    a file one such commit touched is no pattern and still moves down (issue 34)."""
    files = {"package.json": json.dumps({"name": "acme"})}
    files |= {
        f"src/step{i}.ts": f"// runs release step {i}\nexport function step{i}(): void {{}}\n"
        for i in range(12)
    }
    files[".changes/config.json"] = json.dumps({"pkgManagers": {"cargo": {"publish": ["cargo publish"]}}})
    files["renovate.json"] = json.dumps({"extends": ["config:base"], "labels": ["deps"]})
    repo = git_repo(files, name="acme")
    for n, subject in enumerate(
        ("fix: covector publish for the cli", "fix(covector): cli publish", "ci: covector publish")
    ):
        repo.write(
            ".changes/config.json",
            json.dumps({"pkgManagers": {"cargo": {"publish": [f"cargo publish -{n}"]}}}),
        )
        repo.commit(subject)
    repo.write("renovate.json", json.dumps({"extends": ["config:base"], "labels": ["covector"]}))
    repo.commit("chore: label covector publish updates")
    _crawl(repo, run_json)

    def placed(text: str) -> dict[str, dict]:  # type: ignore[type-arg]
        code, found, err = run_json(*SEARCH, "--text", text)
        assert code == 0, err
        return {r["relative_path"]: r["explain"] for r in found["results"]}

    request = placed("fix: covector publish of the cli crate")
    assert request[".changes/config.json"]["role"] == "source", request[".changes/config.json"]
    # one commit: no pattern, x0.5 as a config file the request does not name (kept by score)
    assert "config" in [m["signal"] for m in request["renovate.json"]["signals"]]
    assert "config" not in [m["signal"] for m in request[".changes/config.json"]["signals"]]
    question = placed("how does covector publish the cli crate?")
    assert question[".changes/config.json"]["role"] == "config"


def _tune(**weights: float) -> None:
    """The catalog's `search` section of config.json, as a user tuning with `monodex eval` writes it."""
    file = paths.resolve().config_file
    cfg = json.loads(file.read_text())
    cfg["catalogs"]["acme"]["search"] = weights
    file.write_text(json.dumps(cfg))


def test_the_catalogs_search_tuning_weighs_the_history_and_the_lexical_list(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo)
    _crawl(repo, run_json)
    _tune(history_weight=2.0)  # read per search: nothing to restart or re-crawl
    code, found, err = run_json(*SEARCH, "--text", "throttle")
    assert code == 0, err
    gate = _gate(found)
    assert gate is not None
    assert [m["change"] for m in gate["explain"]["signals"] if m["signal"] == "past-words"] == [0.14]  # 2 x 0.35 / 5
    _tune(history_weight=0)  # the history off: the file only its commits describe is not found
    code, found, err = run_json(*SEARCH, "--text", "throttle")
    assert code == 0, err
    assert _gate(found) is None
    assert not any(m["signal"] == "past-words" for r in found["results"] for m in r["explain"]["signals"])
    # the lexical list's weight in the fusion: a hit's fused score is 1 / (5 + dense place - 1)
    # + weight / (5 + lexical place - 1)
    for weight in (1.0, 3.0):
        _tune(lexical_weight=weight, history_weight=0)
        code, found, err = run_json(*SEARCH, "--text", "outgoing requests of host 7")
        assert code == 0, err
        both = [
            r["explain"]
            for r in found["results"]
            if r["explain"]["dense_rank"] and r["explain"]["lexical_rank"]
        ]
        assert both, found["results"]
        for e in both:
            assert e["fused_score"] == round(
                1 / (4 + e["dense_rank"]) + weight / (4 + e["lexical_rank"]), 6
            ), e
