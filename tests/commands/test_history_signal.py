"""The history signal end to end (issue 14): a crawl counts which files changed together, and a
search lifts a lower hit that changed with its top hits, saying so in --explain. A history that
cannot be counted or read never fails a crawl or a search."""

from __future__ import annotations

import json

from monodex.indexer.history.cochanges import db_path

from monodex.disk import paths
from monodex.main import main

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--mode", "lexical", "--explain", "--json")


def _body(name: str, times: int) -> str:
    lines = "\n".join(f"  // the retry budget is spent here ({i})" for i in range(times))
    return f"export function {name}(): void {{\n{lines}\n}}\n"


def _repo(git_repo):  # type: ignore[no-untyped-def]
    """Nine files matching the query, f1 best, f9 worst; f9 changed with f1 in every commit."""
    files = {"package.json": json.dumps({"name": "acme"})}
    files |= {f"src/f{i}.ts": _body(f"f{i}", 10 - i) for i in range(1, 10)}
    repo = git_repo(files, name="acme")
    for n in range(3):
        repo.write("src/f1.ts", _body("f1", 9) + f"// {n}\n")
        repo.write("src/f9.ts", _body("f9", 1) + f"// {n}\n")
        repo.commit(f"f1 and f9, {n}")
    return repo


def _crawl(repo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err


def test_a_crawl_counts_history_and_the_search_lifts_what_changed_with_the_top(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo)
    _crawl(repo, run_json)
    assert db_path(paths.resolve().state_dir, "acme").exists()
    code, found, err = run_json(*SEARCH, "--text", "retry budget")
    assert code == 0, err
    order = [r["relative_path"] for r in found["results"]]
    assert order[0] == "src/f1.ts"
    lifted = next(r for r in found["results"] if r["relative_path"] == "src/f9.ts")
    why = [m["why"] for m in lifted["explain"]["signals"] if m["signal"] == "history"]
    assert why and "changed together with src/f1.ts in 4 of its 4 commits" in why[0], lifted["explain"]
    assert order.index("src/f9.ts") < order.index("src/f8.ts")  # lifted above a better match


def test_a_history_that_cannot_be_counted_or_read_fails_nothing(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo)
    db = db_path(paths.resolve().state_dir, "acme")
    db.mkdir(parents=True)  # a folder where the counts should be: neither written nor read
    _crawl(repo, run_json)
    code, found, err = run_json(*SEARCH, "--text", "retry budget")
    assert code == 0, err
    assert [r["relative_path"] for r in found["results"]][-1] == "src/f9.ts"  # no history: no lift
    db.rmdir()
    db.write_bytes(b"not a database")
    code, found, err = run_json(*SEARCH, "--text", "retry budget")
    assert code == 0, err
    assert [r["relative_path"] for r in found["results"]][-1] == "src/f9.ts"


def test_a_runner_counts_the_history_an_older_index_lacks(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    """An index built before the history signal (or counts deleted): the runner, starting,
    queues one refresh per catalog without counts; that refresh counts them."""
    from monodex.indexer.ops import background
    from monodex.indexer.session import Session

    from monodex.runner import spool
    from monodex.settings import config

    repo = _repo(git_repo)
    _crawl(repo, run_json)
    p = paths.resolve()
    db = db_path(p.state_dir, "acme")
    db.unlink()
    queue = spool.default(p.state_dir)
    with Session(config.load(p), p) as s:
        assert background.queue_uncounted_history(s, queue) == ["acme:main"]
        (request,) = queue.requests_for("acme:main")
        assert request.commit == repo.head()
        background.refresh_label(s, request)
        assert db.exists()
        assert background.queue_uncounted_history(s, spool.default(p.state_dir)) == []  # counted now
    code, found, err = run_json(*SEARCH, "--text", "retry budget")
    assert code == 0, err
    assert any(m["signal"] == "history" for r in found["results"] for m in r["explain"]["signals"])
