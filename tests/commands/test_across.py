"""Questions across branches (issue 24), through the CLI on a real repository with four labels:
`main`; `feature/retry` changes retry.ts; `feature/backoff` adds backoff.ts; `feature/no-colors`
removes colors.ts. ConfigLoader.ts is identical everywhere: one set of chunks held by all four."""

from __future__ import annotations

import pytest

from tests.commands.conftest import RETRY_TS

RETRY_JITTER_TS = RETRY_TS.replace(
    "      await new Promise((resolve) => setTimeout(resolve, delayMs));\n      delayMs *= 2;",
    "      const jitterMs: number = Math.random() * delayMs;\n"
    "      await new Promise((resolve) => setTimeout(resolve, delayMs + jitterMs));\n      delayMs *= 2;",
)
BACKOFF_TS = """/** Computes how long to wait before the next attempt: capped exponential backoff. */
export function nextBackoffDelay(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** attempt);
}
"""
LABELS = ["feature/backoff", "feature/no-colors", "feature/retry", "main"]
CONFIG = "libraries/config/src/ConfigLoader.ts"
RETRY = "libraries/net/src/retry.ts"
COLORS = "libraries/terminal/src/colors.ts"
BACKOFF = "libraries/net/src/backoff.ts"


@pytest.fixture
def branches(monorepo, run_json):  # type: ignore[no-untyped-def]
    assert RETRY_JITTER_TS != RETRY_TS
    main = monorepo.head()
    for branch, change in (
        ("feature/retry", lambda: monorepo.write(RETRY, RETRY_JITTER_TS)),
        ("feature/backoff", lambda: monorepo.write(BACKOFF, BACKOFF_TS)),
        ("feature/no-colors", lambda: monorepo.remove(COLORS)),
    ):
        monorepo.git("checkout", "-q", "-b", branch, main)
        change()
        monorepo.commit(f"{branch}: change")
    monorepo.git("checkout", "-q", "main")
    for label in LABELS:
        code, _, err = run_json("crawl", "--catalog", "acme", "--label", label, "--commit", label, "--json")
        assert code == 0, err
    assert run_json("use", "--catalog", "acme", "--label", "main")[0] == 0
    return monorepo


def test_all_labels_search_gives_one_hit_per_chunk_with_its_labels(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json(
        "search",
        "--all-labels",
        "--text",
        "load and parse the JSON configuration file",
        "--limit",
        "3",
        "--json",
    )
    assert code == 0, err
    config = [r for r in out["results"] if r["relative_path"] == CONFIG]
    assert len(config) == 1  # shared by four labels, still one hit
    assert config[0]["labels"] == LABELS and config[0]["other_versions"] == []
    assert sorted(out["freshness_by_label"]) == LABELS
    assert all(f["fresh"] is True for f in out["freshness_by_label"].values())
    assert "freshness" not in out

    code, out, err = run_json("search", "--all-labels", "--text", "retry with exponential backoff", "--json")
    assert code == 0, err
    retry = {r["file_id"]: r for r in out["results"] if r["relative_path"] == RETRY}
    assert len(retry) == 2  # two versions: two hits, each naming its holders and the other version
    holders = sorted(tuple(r["labels"]) for r in retry.values())
    assert holders == [("feature/backoff", "feature/no-colors", "main"), ("feature/retry",)]
    for fid, r in retry.items():
        other = next(f for f in retry if f != fid)
        assert {o["file_id"] for o in r["other_versions"]} == {other}
        assert sorted(o["label"] for o in r["other_versions"]) == sorted(retry[other]["labels"])
    assert any(r["relative_path"] == BACKOFF and r["labels"] == ["feature/backoff"] for r in out["results"])

    code, text, err = run_json("search", "--all-labels", "--text", "retry with exponential backoff")
    assert code == 0 and "in: feature/retry" in text and "other version in: " in text, err
    assert "# main: index at" in text and "fresh with branch main" in text


def test_label_globs_choose_the_labels_searched(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json(
        "search", "--labels", "feature/r*", "--labels", "main", "--text", "colorize text", "--json"
    )
    assert code == 0, err
    assert sorted(out["freshness_by_label"]) == ["feature/retry", "main"]
    colors = next(r for r in out["results"] if r["relative_path"] == COLORS)
    assert colors["labels"] == ["feature/retry", "main"]  # feature/no-colors was not searched
    branches.git("checkout", "-q", "feature/retry")  # the branch moves on, its label does not
    branches.write("libraries/net/src/more.ts", "export const more = 1;\n")
    moved = branches.commit("more")
    branches.git("checkout", "-q", "main")
    code, out, err = run_json("search", "--labels", "*", "--text", "colorize text", "--json")
    by_label = out["freshness_by_label"]
    assert by_label["feature/retry"]["fresh"] is False and by_label["feature/retry"]["branch_commit"] == moved
    assert by_label["main"]["fresh"] is True and len(by_label) == 4
    code, text, err = run_json("search", "--labels", "*", "--text", "colorize text")
    assert "# feature/retry: index at" in text and f"STALE: branch feature/retry is at {moved[:12]}" in text
    code, _, err = run_json("search", "--labels", "release/*", "--text", "x")
    assert code == 2 and "no label of catalog 'acme' matches 'release/*'" in err and "feature/retry" in err
    code, _, err = run_json("search", "--labels", "Main!", "--text", "x")
    assert code == 2 and "invalid --labels pattern" in err
    code, _, err = run_json("search", "--all-labels", "--label", "main", "--text", "x")
    assert code == 2 and "drop --label" in err
    code, _, err = run_json("search", "--all-labels", "--fresh", "--text", "x")
    assert code == 2 and "--fresh waits for one label" in err


def test_diff_lists_added_removed_and_changed_files_with_symbols(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json("diff", "--from", "main", "--to", "feature/retry", "--json")
    assert code == 0, err
    assert (out["from"], out["to"]) == ("main", "feature/retry")
    assert [(f["path"], f["change"], f["package"]) for f in out["files"]] == [(RETRY, "changed", "@acme/net")]
    (sym,) = out["files"][0]["symbols"]
    assert sym["change"] == "changed" and "fetchWithRetry" in sym["breadcrumb"]
    assert out["packages"] == [{"package": "@acme/net", "added": 0, "removed": 0, "changed": 1}]

    code, out, err = run_json("diff", "--from", "main", "--to", "feature/backoff", "--json")
    assert [(f["path"], f["change"]) for f in out["files"]] == [(BACKOFF, "added")]
    assert [s["change"] for s in out["files"][0]["symbols"]] == ["added"]
    assert out["summary"]["chunks_removed"] == 0 and out["summary"]["chunks_added"] >= 1

    code, out, err = run_json("diff", "--from", "main", "--to", "feature/no-colors", "--json")
    assert [(f["path"], f["change"], f["package"]) for f in out["files"]] == [
        (COLORS, "removed", "@acme/terminal")
    ]
    code, out, err = run_json("diff", "--from", "main", "--to", "main", "--json")
    assert code == 0 and out["files"] == [] and out["summary"]["files_changed"] == 0

    code, text, err = run_json("diff", "--from", "feature/retry", "--to", "feature/backoff")
    assert code == 0, err
    assert "@acme/net" in text and f"M {RETRY}" in text and f"A {BACKOFF}" in text
    assert "~ @acme/net:retry.ts:fetchWithRetry  1-13" in text  # decoded for people, as search does


def test_diff_text_ranks_the_changes_by_the_question(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    branches.git("checkout", "-q", "-b", "feature/both", "feature/retry")
    branches.write(BACKOFF, BACKOFF_TS)
    branches.remove(COLORS)
    branches.commit("both")
    assert run_json("crawl", "--catalog", "acme", "--label", "feature/both", "--commit", "HEAD")[0] == 0
    code, out, err = run_json("diff", "--from", "main", "--to", "feature/both", "--json")
    assert {f["path"] for f in out["files"]} == {RETRY, BACKOFF, COLORS}
    code, out, err = run_json(
        "diff", "--from", "main", "--to", "feature/both", "--text", "terminal colors", "--json"
    )
    assert code == 0, err
    assert out["files"][0]["path"] == COLORS and out["files"][0]["change"] == "removed"
    assert out["files"][0]["score"] > 0
    code, out, err = run_json(
        "diff", "--from", "main", "--to", "feature/both", "--text", "random jitter", "--limit", "1", "--json"
    )
    assert [f["path"] for f in out["files"]] == [RETRY] and out["more"] + out["unmatched"] == 2
    code, out, err = run_json(
        "diff", "--from", "main", "--to", "feature/both", "--path", "libraries/net", "--json"
    )
    assert {f["path"] for f in out["files"]} == {RETRY, BACKOFF}
    code, _, err = run_json("diff", "--from", "main", "--to", "release/9")
    assert code == 2 and "label 'release/9' of catalog 'acme' is not indexed" in err


def test_diff_against_a_working_directory_label(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    branches.write(RETRY, RETRY_JITTER_TS)
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "wip", "--working-dir", "--json")
    assert code == 0, err
    code, out, err = run_json("diff", "--from", "main", "--to", "wip", "--json")
    assert code == 0, err
    assert [(f["path"], f["change"]) for f in out["files"]] == [(RETRY, "changed")]
    assert out["source_kinds"] == {"from": "git-commit", "to": "working-directory"}
    code, out, err = run_json("diff", "--from", "feature/retry", "--to", "wip", "--json")
    assert out["files"] == []  # the same content as the branch: the same file version


def test_labels_containing_a_file_version_a_path_and_a_line(branches, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json("search", "--label", "feature/retry", "--text", "retry backoff", "--json")
    new_id = next(r["file_id"] for r in out["results"] if r["relative_path"] == RETRY)
    code, out, err = run_json("labels", "--containing", new_id, "--json")
    assert code == 0, err
    assert out["relative_path"] == RETRY and out["labels"] == ["feature/retry"]
    assert sorted(o["label"] for o in out["other_versions"]) == [
        "feature/backoff",
        "feature/no-colors",
        "main",
    ]
    assert len(out["versions"]) == 2

    code, out, err = run_json("labels", "--containing", CONFIG, "--json")
    assert out["labels"] == LABELS and out["other_versions"] == []
    code, _, err = run_json("labels", "--containing", RETRY)
    assert code == 2 and "2 versions" in err and "--label" in err
    # line 1 (the doc comment and signature) is the same text on both branches: the same chunk
    code, out, err = run_json("labels", "--containing", f"{RETRY}:1", "--label", "main", "--json")
    assert code == 0, err
    assert out["chunk"]["start_line"] == 1
    assert out["labels"] == ["feature/backoff", "feature/no-colors", "main"]
    assert [o["label"] for o in out["other_versions"]] == ["feature/retry"]  # its text changed there
    code, text, err = run_json("labels", "--containing", f"{COLORS}:9")
    assert code == 0 and "held by: feature/backoff, feature/retry, main" in text, err
    code, _, err = run_json("labels", "--containing", "libraries/none.ts")
    assert code == 2 and "is in no label" in err
    code, _, err = run_json("labels", "--containing", "0123456789abcdef")
    assert code == 2 and "is in no label" in err
