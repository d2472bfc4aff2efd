"""A search where you stand never answers from a commit you are not on (issue 35, item 2).

Before: after `git reset --hard HEAD~2` (or commits while no runner ran) a plain search returned
the removed code for up to the refs interval (indefinitely with no runner), with only a header
line saying STALE."""

from __future__ import annotations

import time

from monodex.main import main

TS = "export function feature%d(): string {\n  return 'feature number %d lives here';\n}\n"
QUESTION = "feature number 3 lives here"
GONE = {"src/f2.ts", "src/f3.ts"}


def _repo(git_repo, run_json):  # type: ignore[no-untyped-def]
    repo = git_repo({"src/base.ts": TS % (0, 0)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    for i in range(1, 4):
        repo.write(f"src/f{i}.ts", TS % (i, i))
        repo.commit(f"feature {i}")
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    return repo


def _search(run_json, *flags: str) -> dict:  # type: ignore[no-untyped-def,type-arg]
    code, answer, err = run_json("search", "--text", QUESTION, *flags, "--json")
    assert code == 0, err
    return answer  # type: ignore[no-any-return]


def _started(run_json) -> None:  # type: ignore[no-untyped-def]
    """Until the runner has run its start-up refs check: a reset before it is the check's to find
    (it queues the refresh and the start-up drain runs it), not the search's; a fixed half second
    was not always enough on two busy cores."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        code, out, err = run_json("status", "--json")
        assert code == 0, err
        if "refs" in out["jobs"]:
            return
        time.sleep(0.1)
    raise AssertionError(f"the runner never ran its start-up refs check: {out['jobs']}")


def _paths(answer: dict) -> set[str]:  # type: ignore[type-arg]
    return {r["relative_path"] for r in answer["results"]}


def test_a_reset_branch_is_caught_up_before_a_search_without_a_runner(
    git_repo, run_json, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json)
    indexed = repo.head()
    repo.git("reset", "-q", "--hard", "HEAD~2")
    head = repo.head()
    monkeypatch.chdir(repo.path)
    # only when asked: the label as indexed, saying so
    stale = _search(run_json, "--as-indexed")
    assert GONE & _paths(stale)
    assert stale["freshness"]["as_indexed"] is True and stale["freshness"]["checkout_commit"] == head
    assert any("--as-indexed" in n for n in stale["notes"])
    answer = _search(run_json)
    assert not GONE & _paths(answer)
    f = answer["freshness"]
    assert f["fresh"] is True and f["commit"] == head and f["checkout_commit"] == head
    assert f["caught_up"]["from_commit"] == indexed and f["caught_up"]["to_commit"] == head
    assert any(n.startswith("acme:main was at") and "caught up" in n for n in answer["notes"])
    code, text, _ = run_json("search", "--text", QUESTION)
    assert "STALE" not in text and "fresh with branch main" in text
    assert "caught_up" not in _search(run_json)["freshness"]  # once is enough


def test_commits_made_while_no_runner_ran_are_searched(git_repo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json)
    repo.write("src/f4.ts", "export const launch = 'the rocket launch manifest parser';\n")
    head = repo.commit("feature 4")
    monkeypatch.chdir(repo.path)
    code, answer, err = run_json("search", "--text", "rocket launch manifest", "--json")
    assert code == 0, err
    assert "src/f4.ts" in _paths(answer) and answer["freshness"]["caught_up"]["to_commit"] == head


def test_a_reset_branch_is_caught_up_through_the_runner(
    git_repo, run_json, monkeypatch, start_runner
) -> None:  # type: ignore[no-untyped-def]
    """With the runner up, the search asks the runner's one refresh path (its spool and drain),
    whose interval is far away: only the search's wake moves the label."""
    repo = _repo(git_repo, run_json)
    start_runner(3600)
    _started(run_json)  # its start-up refs check found nothing to do
    repo.git("reset", "-q", "--hard", "HEAD~2")
    head = repo.head()
    monkeypatch.chdir(repo.path)
    answer = _search(run_json)
    assert not GONE & _paths(answer)
    f = answer["freshness"]
    assert f["fresh"] is True and f["commit"] == head and f["caught_up"]["to_commit"] == head
    code, out, _ = run_json("status", "--json")
    assert out["jobs"]["drain"]["result"]["labels"] == ["main"]  # the runner's refresh did it
