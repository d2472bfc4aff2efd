"""`monodex eval` end to end: a real repository with squash-merged and merged pull requests,
crawled for real, its questions ranked by every mode and by BM25, in-process and through the
runner."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from monodex.disk import paths
from monodex.main import main
from tests.commands.conftest import MONOREPO

SYSTEMS = ["hybrid", "dense", "lexical", "bm25"]


def _history(git_repo, monkeypatch):  # type: ignore[no-untyped-def]
    repo = git_repo(MONOREPO, name="acme")
    retry = repo.path / "libraries/net/src/retry.ts"
    repo.write("libraries/net/src/retry.ts", retry.read_text().replace("*= 2", "*= 3"))
    repo.commit("Grow the backoff delay of fetch retries faster (#12)")
    repo.git("checkout", "-q", "-b", "config")
    loader = repo.path / "libraries/config/src/ConfigLoader.ts"
    repo.write("libraries/config/src/ConfigLoader.ts", loader.read_text() + "// validates the JSON too\n")
    repo.commit("wip")
    repo.git("checkout", "-q", "main")
    repo.write("README.md", (repo.path / "README.md").read_text() + "\nMore words.\n")
    # committed "before" the commit it follows (a skewed clock): questions are still asked in the
    # order their changes landed, each with the history before it
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2001-01-01T00:00:00Z")
    repo.commit("Say more about the tools in the readme (#13)")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    message = "Merge pull request #14 from me/config\n\nValidate the JSON configuration file when loading it"
    repo.git("merge", "-q", "--no-ff", "config", "-m", message)
    colors = repo.path / "libraries/terminal/src/colors.ts"
    repo.write("libraries/terminal/src/colors.ts", colors.read_text() + "// bright colors next\n")
    repo.commit("Print colored text in the terminal with ANSI codes (#15)")
    repo.write("package.json", json.dumps({"name": "root-workspace", "version": "1.0.1"}))
    repo.commit("Bump versions [skip ci]")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    return repo


def _crawled(git_repo, run_json, monkeypatch):  # type: ignore[no-untyped-def]
    repo = _history(git_repo, monkeypatch)
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    return repo


def _figures_in_range(result: dict[str, Any], halves: list[str]) -> None:
    assert result["systems"] == SYSTEMS
    for system in SYSTEMS:
        assert list(result["results"][system]) == halves
        for half in halves:
            figures = result["results"][system][half]
            for name in ("recall_at_10", "mrr_at_10", "ndcg_at_10"):
                assert 0.0 <= figures[name] <= 1.0, (system, half, name)


def test_eval_scores_every_mode_and_bm25_on_the_history_questions(git_repo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _crawled(git_repo, run_json, monkeypatch)
    code, result, err = run_json("eval", "--catalog", "acme", "--label", "main", "--json", "--per-query")
    assert code == 0, err
    assert err == ""  # --json: nothing on stderr, no progress line
    q = result["questions"]
    assert q["total"] == 4 and q["tune"] + q["test"] == 4
    assert q["source"] == "history: 4 pull requests, 0 commits"
    assert q["skipped"] == {"short title": 1, "version bump": 1}
    _figures_in_range(result, ["tune", "test", "all"])
    assert result["results"]["hybrid"]["all"]["questions"] == 4
    assert result["history_signal"]["how"] == "as-of"
    rows = {r["id"]: r for r in result["per_query"]}
    assert set(rows) == {"pr-12", "pr-13", "pr-14", "pr-15"}
    assert rows["pr-14"]["query"] == "Validate the JSON configuration file when loading it"
    assert rows["pr-14"]["relevant"] == ["libraries/config/src/ConfigLoader.ts"]
    ranks = rows["pr-12"]["systems"]["lexical"]["ranks"]
    assert list(ranks) == ["libraries/net/src/retry.ts"] and ranks["libraries/net/src/retry.ts"] in (
        *range(1, 11),
        None,
    )
    # the same commit, the same set and the same figures
    again = run_json("eval", "--catalog", "acme", "--label", "main", "--json", "--per-query")[1]
    assert {k: again[k] for k in ("questions", "results", "per_query")} == {
        k: result[k] for k in ("questions", "results", "per_query")
    }


def test_the_text_table_lists_every_system_per_half(git_repo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _crawled(git_repo, run_json, monkeypatch)
    code, out, _ = run_json("eval", "--catalog", "acme", "--label", "main")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("acme main at ") and "4 questions (history: 4 pull requests" in lines[0]
    assert "skipped 2 of 6 commits read: short title 1, version bump 1" in out
    assert "history (co-change and past words): as of each question's change" in out
    header = next(i for i, line in enumerate(lines) if line.startswith("system"))
    assert "tune (" in lines[header - 1] and "test (" in lines[header - 1] and "all (4)" in lines[header - 1]
    assert lines[header].split() == ["system", *["R@10", "MRR@10", "nDCG@10"] * 3]
    rows = {line.split("  ")[0]: line for line in lines[header + 1 : header + 5]}
    assert set(rows) == {"hybrid", "dense", "lexical", "bm25 (files)"}
    assert all(len(row.split()) >= 9 for row in rows.values())
    code, out, _ = run_json(
        "eval", "--catalog", "acme", "--label", "main", "--mode", "lexical", "--split", "all"
    )
    assert code == 0 and "all (4)" in out and "tune (" not in out and "\nhybrid" not in out


def test_hand_written_questions_drop_what_is_not_indexed_and_report_kinds(  # type: ignore[no-untyped-def]
    git_repo, run_json, tmp_path: Path, monkeypatch
) -> None:
    _crawled(git_repo, run_json, monkeypatch)
    f = tmp_path / "mine.jsonl"
    f.write_text(
        '{"query": "retry a request with exponential backoff", "relevant": ["libraries/net/src/retry.ts",'
        ' "libraries/net/src/gone.ts"], "kind": "concept"}\n'
        '{"query": "ConfigLoader", "relevant": ["libraries/config/src/ConfigLoader.ts"], "kind": "symbol"}\n'
        '{"query": "colors", "relevant": ["libraries/terminal/lib/colors.js"], "kind": "symbol"}\n'
    )
    code, result, err = run_json(
        "eval", "--catalog", "acme", "--label", "main", "--questions", str(f), "--json"
    )
    assert code == 0, err
    q = result["questions"]
    assert q["source"] == "file mine.jsonl" and q["total"] == 2
    assert q["relevant_dropped"] == 2 and q["skipped"] == {"no relevant file indexed": 1}
    assert q["kinds"] == {"concept": 1, "symbol": 1}
    assert set(result["by_kind"]) == {"concept", "symbol"}
    assert set(result["by_kind"]["symbol"]) == set(SYSTEMS)
    assert result["history_signal"]["how"] == "full"
    _figures_in_range(result, ["tune", "test", "all"])
    f.write_text('{"query": "x y", "relevant": ["a.ts"]}\n{"query": broken}\n')
    code, _, err = run_json("eval", "--catalog", "acme", "--label", "main", "--questions", str(f))
    assert code == 2 and "mine.jsonl line 2: not JSON" in err


def test_a_history_without_questions_says_to_write_some(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files({"src/a.ts": "export const a = 1;\n"})  # one commit: "initial"
    code, out, err = run_json("eval", "--catalog", "acme", "--label", "main")
    assert code == 2 and out == ""
    assert "no question found in the history of acme:main (1 commits read; skipped: short title 1)" in err
    assert "--questions FILE" in err


def test_through_the_runner_the_figures_are_the_same(git_repo, run_json, start_runner, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    _crawled(git_repo, run_json, monkeypatch)
    here = run_json("eval", "--catalog", "acme", "--label", "main", "--json", "--per-query")[1]
    start_runner(3600)
    code, there, err = run_json("eval", "--catalog", "acme", "--label", "main", "--json", "--per-query")
    assert code == 0, err
    assert {k: there[k] for k in ("questions", "results", "per_query", "history_signal")} == {
        k: here[k] for k in ("questions", "results", "per_query", "history_signal")
    }
    # a tuning tried for one run travels to the runner with the request
    code, tuned, err = run_json(
        "eval", "--catalog", "acme", "--label", "main", "--json", "--history-weight", "0"
    )
    assert code == 0, err
    assert tuned["tuning"] == {"lexical_weight": 1.0, "history_weight": 0.0}


def test_hand_written_questions_with_lines_are_scored_on_them_too(  # type: ignore[no-untyped-def]
    git_repo, run_json, tmp_path: Path, monkeypatch
) -> None:
    _crawled(git_repo, run_json, monkeypatch)
    loader = "libraries/config/src/ConfigLoader.ts"
    f = tmp_path / "mine.jsonl"
    f.write_text(
        # the class's lines: any chunk of it the search lists overlaps them
        f'{{"id": "at", "query": "ConfigLoader", "relevant": ["{loader}"], "lines": {{"{loader}": [[5, 17]]}}, "kind": "symbol"}}\n'
        # lines the file does not reach: found by its path, missed by its lines
        f'{{"id": "off", "query": "ConfigLoader", "relevant": ["{loader}"], "lines": {{"{loader}": [[900, 910]]}}, "kind": "symbol"}}\n'
        '{"id": "none", "query": "retry with backoff", "relevant": ["libraries/net/src/retry.ts"]}\n'
    )
    args = ("eval", "--catalog", "acme", "--label", "main", "--questions", str(f), "--split", "all")
    code, result, err = run_json(*args, "--json", "--per-query")
    assert code == 0, err
    hybrid = result["results"]["hybrid"]["all"]
    assert hybrid["questions"] == 3 and hybrid["questions_with_lines"] == 2
    assert hybrid["ndcg_at_10_lines"] == 0.5  # "at" 1.0, "off" 0.0; "none" gives no lines
    assert "ndcg_at_10_lines" not in result["results"]["bm25"]["all"]  # whole files have no lines
    placed = {q["id"]: q["systems"]["hybrid"] for q in result["per_query"]}
    assert placed["at"]["ndcg_at_10"] == placed["off"]["ndcg_at_10"] == 1.0
    assert (placed["at"]["ndcg_at_10_lines"], placed["off"]["ndcg_at_10_lines"]) == (1.0, 0.0)
    assert "ndcg_at_10_lines" not in placed["none"]
    code, out, err = run_json(*args)
    assert code == 0, err
    assert "nDCG@10 on the answers' lines, all (2 questions): hybrid 0.500" in out and "bm25 (files) -" in out
    # and by kind: the symbol questions gave lines
    kinds = out[out.index("nDCG@10 by kind") :].splitlines()
    assert any(row.startswith("on the answers' lines") for row in kinds)
    assert any(
        row.startswith("symbol (2)") and row.split()[2:4] == ["0.500", "0.500"] for row in kinds[2:]
    ), kinds


def test_against_an_earlier_run_shows_what_moved_since(  # type: ignore[no-untyped-def]
    git_repo, run_json, tmp_path: Path, monkeypatch
) -> None:
    repo = _crawled(git_repo, run_json, monkeypatch)
    label = ("eval", "--catalog", "acme", "--label", "main")
    code, before, err = run_json(*label, "--json", "--per-query")
    assert code == 0, err
    saved = tmp_path / "before.json"
    saved.write_text(json.dumps(before))
    # the same label, asked again: nothing moved
    code, same, err = run_json(*label, "--json", "--against", str(saved))
    assert code == 0, err
    assert "per_query" not in same  # asked for the comparison, not for the listing
    a = same["against"]
    assert (a["source"], a["catalog"], a["label"], a["commit"]) == (
        "before.json",
        "acme",
        "main",
        before["commit"],
    )
    assert set(a["figures"]) == set(SYSTEMS) and set(a["figures"]["hybrid"]) == {"tune", "test", "all"}
    assert a["figures"]["hybrid"]["all"]["ndcg_at_10"] == {
        "before": before["results"]["hybrid"]["all"]["ndcg_at_10"],
        "after": before["results"]["hybrid"]["all"]["ndcg_at_10"],
        "change": 0.0,
    }
    assert a["questions"] == {
        "system": "hybrid",
        "compared": 4,
        "better": [],
        "worse": [],
        "only_now": 0,
        "only_before": 0,
    }
    assert a["notes"] == []
    # a file that says every word of one question lands beside its answer: that question loses
    repo.write(
        "libraries/net/src/backoff.ts",
        "// grow the backoff delay of fetch retries faster\n"
        "export function growBackoffDelayOfFetchRetriesFaster(delay: number): number {\n"
        "  // the fetch retries grow their backoff delay faster\n  return delay * 4;\n}\n",
    )
    repo.commit("wip")  # too short to be a question: the same four are asked
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    code, now, err = run_json(*label, "--json", "--per-query", "--against", str(saved))
    assert code == 0, err
    a = now["against"]
    was = {q["id"]: q["systems"]["hybrid"]["ndcg_at_10"] for q in before["per_query"]}
    is_ = {q["id"]: q["systems"]["hybrid"]["ndcg_at_10"] for q in now["per_query"]}
    assert is_["pr-12"] < was["pr-12"]
    worse = {m["id"]: m for m in a["questions"]["worse"]}
    assert worse["pr-12"]["before"] == was["pr-12"] and worse["pr-12"]["after"] == is_["pr-12"]
    assert worse["pr-12"]["query"] == "Grow the backoff delay of fetch retries faster"
    assert {m["id"] for m in a["questions"]["better"]} == {i for i in is_ if is_[i] > was[i]}
    change = a["figures"]["hybrid"]["all"]["ndcg_at_10"]
    assert change["after"] == now["results"]["hybrid"]["all"]["ndcg_at_10"]
    assert change["change"] == round(change["after"] - change["before"], 4) < 0
    assert any("the label moved since the earlier run" in n for n in a["notes"])
    code, out, err = run_json(*label, "--against", str(saved))
    assert code == 0, err
    since = out[out.index("since before.json (acme main at ") :].splitlines()
    assert since[2].split() == ["system", *["R@10", "MRR@10", "nDCG@10"] * 3]
    hybrid = since[3].split()
    assert hybrid[0] == "hybrid" and len(hybrid) == 10  # 3 figures x 3 halves
    assert hybrid[9] == f"{change['change']:+.3f}"
    assert any(row.startswith("questions (hybrid nDCG@10, 4 asked by both):") for row in since)
    assert any(row.split()[:3] == ["worse", worse["pr-12"]["split"], "pr-12"] for row in since)


def test_eval_ranks_with_the_catalogs_search_tuning_and_says_so(  # type: ignore[no-untyped-def]
    git_repo, run_json, tmp_path: Path, monkeypatch
) -> None:
    _crawled(git_repo, run_json, monkeypatch)
    label = ("eval", "--catalog", "acme", "--label", "main", "--mode", "hybrid")
    code, before, err = run_json(*label, "--json", "--per-query")
    assert code == 0, err
    assert before["tuning"] == {"lexical_weight": 1.0, "history_weight": 1.0}
    saved = tmp_path / "before.json"
    saved.write_text(json.dumps(before))
    file = paths.resolve().config_file
    cfg = json.loads(file.read_text())
    cfg["catalogs"]["acme"]["search"] = {"lexical_weight": 0, "history_weight": 0}
    file.write_text(json.dumps(cfg))
    code, now, err = run_json(*label, "--json", "--per-query", "--against", str(saved))
    assert code == 0, err
    assert now["tuning"] == {"lexical_weight": 0.0, "history_weight": 0.0}
    # no lexical list and no history: hybrid ranks as the dense mode does
    code, dense, err = run_json("eval", "--catalog", "acme", "--label", "main", "--mode", "dense", "--json")
    assert code == 0, err
    assert now["results"]["hybrid"] == dense["results"]["dense"]
    assert (
        "the search tuning changed: lexical_weight 1.0, history_weight 1.0 then, "
        "lexical_weight 0.0, history_weight 0.0 now" in now["against"]["notes"]
    )
    code, out, err = run_json(*label)
    assert code == 0, err
    tuned = (
        "search tuning: lexical_weight 0, history_weight 0 (the default: lexical_weight 1, history_weight 1)"
    )
    assert tuned in out
    # a flag tries a weight for one run, over the config's
    code, flagged, err = run_json(*label, "--json", "--lexical-weight", "1", "--history-weight", "2.5")
    assert code == 0, err
    assert flagged["tuning"] == {"lexical_weight": 1.0, "history_weight": 2.5}
    code, out, err = run_json(*label, "--lexical-weight", "11")
    assert code == 2 and out == ""
    assert "--lexical-weight must be at most 10, got 11" in err, err
    code, _, err = run_json(*label, "--history-weight", "-1")
    assert code == 2 and "--history-weight must be at least 0, got -1" in err, err
    code, _, err = run_json(*label, "--history-weight", "nan")
    assert code == 2 and "--history-weight must be a number from 0 to 10, got nan" in err, err


def test_against_a_run_without_its_questions_compares_the_figures_only(  # type: ignore[no-untyped-def]
    git_repo, run_json, tmp_path: Path, monkeypatch
) -> None:
    _crawled(git_repo, run_json, monkeypatch)
    label = ("eval", "--catalog", "acme", "--label", "main")
    saved = tmp_path / "figures.json"
    saved.write_text(json.dumps(run_json(*label, "--json", "--mode", "lexical")[1]))
    code, now, err = run_json(*label, "--json", "--against", str(saved))
    assert code == 0, err
    a = now["against"]
    assert set(a["figures"]) == {"lexical", "bm25"}  # the systems both runs scored
    assert "the earlier run did not score hybrid, dense: no change to show for it" in a["notes"]
    assert "questions" not in a
    assert any("does not list its questions" in n and "--per-query" in n for n in a["notes"])


def test_against_a_file_that_is_no_earlier_run_is_a_usage_error(run_json, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # checked before anything is asked of the index (there is none here)
    label = ("eval", "--catalog", "acme", "--label", "main")
    bad = tmp_path / "bad.json"
    for text, says in (
        (None, "cannot read the earlier run"),
        ("{not json", "is not JSON"),
        (
            '{"catalog": "acme", "label": "main"}',
            "is not the output of 'monodex eval --json' (no systems, results)",
        ),
        ("[1, 2]", "is not the output of 'monodex eval --json'"),
    ):
        if text is not None:
            bad.write_text(text)
        code, out, err = run_json(*label, "--against", str(bad))
        assert code == 2 and out == "", text
        assert says in err and "monodex eval --json --per-query > before.json" in err, err
