"""The fill job never delays foreground work (issue 21, item 6): while the runner's fill job runs
the model over a round of chunks, a command handed to the runner and a due refresh start at once.

Before: the fill job held the runner's write lock across a whole round (128 texts through the
model, ~8 s on 2 cores), so `crawl --commit nosuchref` took 18 s to fail on vue."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from monodex.indexer.write import fill
from monodex.scheduler.runner import Runner

from monodex import names
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.runner import rpc, spool

LID = names.label_id("acme", "main")
# A round is 128 texts (~8 s of model time on 2 cores); a foreground command must not wait for it.
BOUND = 3.0


def _file(i: int) -> str:
    words = " ".join(f"value{i}x{j}" for j in range(60))  # distinct text: every chunk is embedded
    return f"export function handler{i}(input: string): string {{\n  return `{words} ${{input}}`;\n}}\n"


@pytest.fixture
def filling(git_repo, run_json):  # type: ignore[no-untyped-def]
    """A runner (socket up, jobs driven by the test) whose fill job is running the model."""
    repo = git_repo({f"src/h{i}.ts": _file(i) for i in range(200)}, name="acme")
    run_json("catalog", "add", "acme", str(repo.path))
    code, _, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"
    )
    assert code == 0, err
    runner = Runner(paths.resolve())
    runner.session.wake = lambda: None  # as in a started runner: handed-over crawls leave phase two
    runner.server.start()
    model = runner.session.engine.embedder
    before = fill.pending(runner.session.store, LID)
    assert before > fill.ROUND  # a full round to run
    job = threading.Thread(target=runner.fill_once, daemon=True)
    job.start()
    deadline = time.monotonic() + 600  # seconds alone; a loaded machine starts the model late
    while model.calls == 0 and time.monotonic() < deadline:  # the model is running (a text per call)
        time.sleep(0.01)
    assert model.calls > 0
    try:
        yield repo, runner, before
    finally:
        runner.stop.set()
        job.join(timeout=600)
        runner.server.close()
        runner.session.close()


def _timed(fn: Any) -> tuple[float, Any]:
    started = time.monotonic()
    try:
        out = fn()
    except UsageError as exc:
        out = exc
    return time.monotonic() - started, out


def test_a_bad_ref_handed_over_fails_at_once_while_vectors_fill(filling) -> None:  # type: ignore[no-untyped-def]
    _repo, runner, before = filling
    args = {"catalog": "acme", "label": "x", "commit": "nosuchref"}
    waited, out = _timed(lambda: rpc.call(paths.resolve(), "crawl", args))
    assert isinstance(out, UsageError) and "unknown revision 'nosuchref'" in out.problem
    assert waited < BOUND
    # the fill round the command did not wait for had not written yet: it was under way
    assert fill.pending(runner.session.store, LID) == before


def test_a_no_op_crawl_and_a_search_start_at_once_while_vectors_fill(filling) -> None:  # type: ignore[no-untyped-def]
    _repo, runner, before = filling
    p = paths.resolve()
    args = {"catalog": "acme", "label": "main", "commit": "HEAD"}
    waited, out = _timed(lambda: rpc.call(p, "crawl", args))
    assert not isinstance(out, Exception) and out["mode"] == "incremental" and out["files_embedded"] == 0
    assert waited < BOUND
    query = {"catalog": "acme", "label": "main", "text": "handler7 value7x3", "limit": 3}
    waited, found = _timed(lambda: rpc.call(p, "search", query))
    assert waited < BOUND and found["results"][0]["relative_path"] == "src/h7.ts"
    assert fill.pending(runner.session.store, LID) > before - fill.ROUND  # the fill was mid-round


def test_a_due_refresh_starts_while_vectors_fill_and_the_fill_goes_on_after(filling) -> None:  # type: ignore[no-untyped-def]
    repo, runner, _before = filling
    repo.write("src/h1.ts", "export const answer = 42;\n")
    sha = repo.commit("answer")
    spool.default(paths.resolve().state_dir).enqueue(
        spool.Request(
            catalog="acme",
            label="main",
            repo=str(repo.path),
            ref="refs/heads/main",
            commit=sha,
            hook="post-commit",
            created_at=spool.now(),
        )
    )
    waited, _ = _timed(runner.drain_once)
    assert waited < BOUND * 2  # the refresh itself: phase one of one file
    state = runner.state.read()
    assert state["drain"]["result"]["refreshed"] == 1
    assert runner.session.store.info() is not None
    from monodex.indexer.points import labelmeta

    meta = labelmeta.read(runner.session.store, LID)
    assert meta is not None and meta.commit_oid == sha and meta.crawl_complete
    # the fill job takes up where it yielded: its vectors are still added (a round is ~8 s of
    # model time alone, minutes on a machine busy with other work)
    deadline = time.monotonic() + 600
    start = fill.pending(runner.session.store, LID)
    while fill.pending(runner.session.store, LID) >= start and time.monotonic() < deadline:
        time.sleep(0.1)
    assert fill.pending(runner.session.store, LID) < start


def test_a_yielding_round_keeps_the_vectors_it_computed(filling) -> None:  # type: ignore[no-untyped-def]
    _repo, runner, before = filling
    runner.stop.set()  # the fill yields after its current slice and writes what it has
    # a slice is 8 texts, under a second alone; a machine at load 10 starved it past a minute
    deadline = time.monotonic() + 600
    while runner.state.read().get("fill") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "fill" in runner.state.read(), "the fill job never wrote its report after yielding"
    report = runner.state.read()["fill"]["result"]
    assert 0 < report["filled"] < fill.ROUND
    assert fill.pending(runner.session.store, LID) == before - report["filled"]
