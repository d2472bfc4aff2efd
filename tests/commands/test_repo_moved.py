"""A catalog's repository moved away: status said only "unknown" and search answered with no
note (issue 22). Now both say the repository is missing at its path, and how to fix that."""

from __future__ import annotations

import shutil

from monodex.main import main


def test_status_and_search_say_the_repository_is_missing_and_how_to_fix_it(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export function answer(): number {\n  return 42;\n}\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    code, _, _ = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0
    moved = r.path.parent / "moved-away"
    shutil.move(r.path, moved)
    fix = "monodex catalog add acme NEWPATH --force"

    code, status, _ = run_json("status", "--json")
    [row] = status["labels"]
    assert code == 0 and row["freshness"] == "unknown"
    assert row["problem"] == f"the repository of catalog 'acme' is missing at {r.path}" and fix in row["hint"]
    code, text, _ = run_json("status")
    assert f"missing at {r.path}; next: if the repository moved: {fix}" in text

    code, found, _ = run_json("search", "--catalog", "acme", "--label", "main", "--text", "answer", "--json")
    assert code == 0 and found["results"] and found["freshness"]["fresh"] is None
    assert any(
        n.startswith("freshness cannot be checked: the repository of catalog 'acme' is missing")
        for n in found["notes"]
    )

    assert main(["catalog", "add", "acme", str(moved), "--force"]) == 0
    code, status, _ = run_json("status", "--json")
    assert status["labels"][0]["freshness"] == "fresh" and "problem" not in status["labels"][0]
