"""A page most changes edit (issue 34, rank/edited.py): jsoup adds a line to CHANGES.md with each
change, so a change request's answer includes it; it is not moved down as a prose page. A
changelog that only releases write, and any page for a question about code, still is."""

from __future__ import annotations

import json
import sqlite3

from monodex.indexer.history.cochanges import db_path

from monodex.disk import paths
from monodex.main import main

SEARCH = ("search", "--label", "main", "--explain", "--json", "--limit", "30")
CHANGES = 40  # more than edited.MIN_CHANGES


def _repo(git_repo, name: str, *, with_each_change: bool):  # type: ignore[no-untyped-def]
    files = {"package.json": json.dumps({"name": name}), "CHANGES.md": "# Changes\n"}
    files |= {
        f"src/tag{i}.ts": f"// parses tag kind {i}\nexport function tag{i}(): number {{ return 0; }}\n"
        for i in range(8)
    }
    repo = git_repo(files, name=name)
    log = ["# Changes"]
    for n in range(CHANGES):
        i = n % 8
        repo.write(
            f"src/tag{i}.ts", f"// parses tag kind {i}\nexport function tag{i}(): number {{ return {n}; }}\n"
        )
        log.append(f"- Tag kind {i} parses its attributes in order {n}")
        if with_each_change:
            repo.write("CHANGES.md", "\n".join(log) + "\n")
        repo.commit(f"Tag kind {i} parses its attributes in order {n}")
        if not with_each_change and n % 10 == 9:  # the changelog written at release
            repo.write("CHANGES.md", "\n".join(log) + "\n")
            repo.commit(f"Release 1.{n // 10}.0")
    assert main(["catalog", "add", name, str(repo.path)]) == 0
    return repo


def _docs(run_json, catalog: str, text: str) -> list[dict]:  # type: ignore[type-arg]
    code, found, err = run_json(*SEARCH, "--catalog", catalog, "--text", text)
    assert code == 0, err
    page = next((r for r in found["results"] if r["relative_path"] == "CHANGES.md"), None)
    assert page is not None, [r["relative_path"] for r in found["results"]]
    return [m for m in page["explain"]["signals"] if m["signal"] == "docs"]


def test_a_changelog_each_change_edits_keeps_its_score_for_a_change_request(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    for name, each in (("each", True), ("release", False)):
        _repo(git_repo, name, with_each_change=each)
        code, _, err = run_json("crawl", "--catalog", name, "--label", "main", "--commit", "HEAD", "--json")
        assert code == 0, err
    request = "Fix tag kind 3 so it parses attributes in reverse order"
    (kept,) = _docs(run_json, "each", request)
    assert kept["change"] == 0.0 and "of the latest changes edited it" in kept["why"], kept
    # released: the same page, written by the release commits alone, moves down as a page
    (down,) = _docs(run_json, "release", request)
    assert down["change"] < 0 and down["why"] == "a prose page, not code", down
    # a question about code moves it down whoever edits it
    (asked,) = _docs(run_json, "each", "how does tag kind 3 parse its attributes?")
    assert asked["change"] < 0 and "asks about code" in asked["why"], asked
    # a phrase may be a change's title: moved down as a change request moves pages
    (phrase,) = _docs(run_json, "each", "tag kind attribute order")
    assert phrase["change"] < 0 and "the phrase may ask for a change" in phrase["why"], phrase


def test_a_history_counted_before_the_latest_changes_fails_nothing(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    """An older monodex's counts (schema 4) have no `changes` table: the search ranks the page as
    a page until the runner's refresh recounts them."""
    _repo(git_repo, "old", with_each_change=True)
    code, _, err = run_json("crawl", "--catalog", "old", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    with sqlite3.connect(db_path(paths.resolve().state_dir, "old")) as con:
        con.execute("DROP TABLE changes")
        con.execute("UPDATE meta SET value = '4' WHERE key = 'schema'")
    (down,) = _docs(run_json, "old", "Fix tag kind 3 so it parses attributes in reverse order")
    assert down["change"] < 0 and down["why"] == "a prose page, not code", down
