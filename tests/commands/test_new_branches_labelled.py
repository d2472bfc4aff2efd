"""Tracked branches created without a hook get labels (issue 35, item 3).

Before: with `feat/*` tracked, 200 `git branch feat/manyN main` left 0 labels after 4 refs checks
(the check compared only branches that already had a label), and the runner's refs job first ran
60 s after each start, so a runner restarted often never checked."""

from __future__ import annotations

import json
import time

from monodex.indexer.ops import background
from monodex.indexer.session import Session
from monodex.scheduler import jobs

from monodex.disk import paths
from monodex.main import main
from monodex.runner import spool
from monodex.settings import config

TS = "export function feature%d(): string {\n  return 'feature number %d lives here';\n}\n"
MANY = 60  # the probe made 200 (docs/reliability.md has that run's figures); each is a refresh here


def _repo(git_repo, run_json, track: list[str]):  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/f{i}.ts": TS % (i, i) for i in range(8)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    cfg = json.loads(paths.resolve().config_file.read_text())
    cfg["catalogs"]["acme"]["track"] = track
    paths.resolve().config_file.write_text(json.dumps(cfg))
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    return repo


def _labels(run_json) -> dict[str, dict]:  # type: ignore[no-untyped-def,type-arg]
    code, out, err = run_json("labels", "--json")
    assert code == 0, err
    return {r["label"]: r for r in out["labels"]}


def test_one_refs_check_labels_every_new_tracked_branch_cheaply(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json, ["feat/*"])
    for n in range(MANY):
        repo.git("branch", f"feat/many{n}", "main")
    repo.git("branch", "other/untracked", "main")
    p = paths.resolve()
    queue = spool.default(p.state_dir)
    with Session(config.load(p), p) as s:
        report = background.poll_branches(s, queue, now=time.time())
        assert sorted(report["created"]) == sorted(f"acme:feat/many{n}" for n in range(MANY))
        assert background.poll_branches(s, queue, now=time.time())["created"] == []  # queued once
        refreshed = []
        while queue.pending():
            drained = jobs.drain(queue, lambda r: background.refresh_label(s, r))
            assert not drained.failed
            refreshed += drained.refreshed
    # derived from main's label: nothing embedded, not one full crawl
    assert {r["mode"] for r in refreshed} == {"derived"} and sum(r["files_embedded"] for r in refreshed) == 0
    labels = _labels(run_json)
    made = {name: row for name, row in labels.items() if name.startswith("feat/")}
    assert len(made) == MANY and "other/untracked" not in labels
    assert all(row["commit_oid"] == repo.head() and row["crawl_complete"] for row in made.values())
    assert all(row["branch"] == name for name, row in made.items())


def test_a_label_removed_by_hand_is_not_brought_back(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json, ["feat/*"])
    repo.git("branch", "feat/kept", "main")
    assert (
        run_json("crawl", "--catalog", "acme", "--branch", "feat/kept", "--commit", "feat/kept", "--json")[0]
        == 0
    )
    assert run_json("labels", "rm", "--catalog", "acme", "--label", "feat/kept", "--json")[0] == 0
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        assert background.poll_branches(s, spool.default(p.state_dir), now=time.time())["created"] == []


def test_the_runner_checks_the_branches_at_start_up(git_repo, run_json, start_runner) -> None:  # type: ignore[no-untyped-def]
    """Its interval is 60 s: a label within seconds of the start comes from the start-up check."""
    repo = _repo(git_repo, run_json, ["feat/*"])
    repo.git("branch", "feat/early", "main")
    start_runner(1)
    deadline = time.monotonic() + 30
    while "feat/early" not in _labels(run_json) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert "feat/early" in _labels(run_json)
    state = json.loads((paths.resolve().state_dir / "runner-state.json").read_text())
    assert state["refs"]["result"]["created"] == ["acme:feat/early"]
