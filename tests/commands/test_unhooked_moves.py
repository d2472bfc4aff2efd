"""Git moves no hook sees, and deleted branches (issue 21, items 4 and 5), on real repositories.

Before: after `git reset --hard HEAD~3` on an indexed branch, `verify`, `verify --repair` and the
nightly verification all said ok and search kept returning the removed code; a deleted branch's
label stayed forever with no word from status or doctor."""

from __future__ import annotations

import threading
from typing import Any

from monodex.indexer.ops import background
from monodex.scheduler import jobs

from monodex import names
from monodex.disk import paths
from monodex.labels import known_labels
from monodex.runner import spool
from monodex.settings import config

TS = "export function feature%d(): string {\n  return 'feature number %d lives here';\n}\n"
DAY = 86400.0


def _repo(git_repo, run_json, *, more: int = 3):  # type: ignore[no-untyped-def]
    repo = git_repo({"src/base.ts": TS % (0, 0)}, name="acme")
    assert run_json("catalog", "add", "acme", str(repo.path))[0] == 0
    for i in range(1, more + 1):
        repo.write(f"src/f{i}.ts", TS % (i, i))
        repo.commit(f"feature {i}")
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    return repo


def _paths_found(run_json, text: str, label: str = "main") -> set[str]:  # type: ignore[no-untyped-def]
    code, out, err = run_json("search", "--catalog", "acme", "--label", label, "--text", text, "--json")
    assert code == 0, err
    return {r["relative_path"] for r in out["results"]}


def _label(run_json, label: str = "main") -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    code, out, _ = run_json("labels", "--json")
    assert code == 0
    return next((r for r in out["labels"] if r["label"] == label), None)


def _drain(open_session) -> jobs.DrainReport:
    with open_session() as s:
        return jobs.drain(spool.default(paths.resolve().state_dir), lambda r: background.refresh_label(s, r))


def test_verify_reports_a_reset_branch_and_repair_moves_the_label(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json)
    assert "src/f3.ts" in _paths_found(run_json, "feature number 3")
    repo.git("reset", "-q", "--hard", "HEAD~3")
    code, out, _ = run_json("verify", "--json")
    row = out["labels"][0]
    assert code == 1 and row["ok"] is False and row["drift"]["branch_moved"] == 1
    assert row["branch_commit"] == repo.head()
    code, out, _ = run_json("verify", "--repair", "--json")
    assert code == 0 and out["labels"][0]["ok_after_repair"] is True
    assert _label(run_json)["commit_oid"] == repo.head()  # type: ignore[index]
    assert not {"src/f1.ts", "src/f2.ts", "src/f3.ts"} & _paths_found(run_json, "feature number 3")
    code, out, _ = run_json("verify", "--json")
    assert code == 0 and out["labels"][0]["drift"]["branch_moved"] == 0


def test_the_nightly_verification_moves_a_label_whose_branch_was_forced(
    git_repo, run_json, open_session
) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json, more=1)
    first = repo.git("rev-list", "--max-parents=0", "HEAD")
    repo.git("branch", "-q", "side", first)
    repo.git("checkout", "-q", "side")
    repo.write("src/side.ts", "export const side = 'only on the side branch';\n")
    side = repo.commit("side")
    repo.git("branch", "-f", "main", side)  # main (not checked out) takes side's history: no hook runs
    with open_session() as s:
        result = background.nightly_verify(s, threading.Event())
    row = result["labels"][0]
    assert row["drift"]["branch_moved"] == 1 and row["ok_after_repair"] is True
    assert _label(run_json)["commit_oid"] == side  # type: ignore[index]


def test_the_ref_poll_queues_moves_no_hook_saw_once(git_repo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json)
    queue = spool.default(paths.resolve().state_dir)
    with open_session() as s:
        assert background.poll_branches(s, queue, now=1000.0)["queued"] == []  # at its tip: nothing to do
        back = repo.git("rev-parse", "HEAD~2")
        repo.git("update-ref", "refs/heads/main", back)
        assert background.poll_branches(s, queue, now=1001.0)["queued"] == ["acme:main"]
        assert background.poll_branches(s, queue, now=1002.0)["queued"] == []  # already queued
    [entry] = queue.requests_for("acme:main")
    assert entry.commit == back and entry.ref == "refs/heads/main"
    assert _drain(open_session).refreshed[0]["commit"] == back
    assert _label(run_json)["commit_oid"] == back  # type: ignore[index]


def test_the_runner_polls_refs_on_its_interval(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    from monodex.scheduler.runner import Runner

    repo = _repo(git_repo, run_json, more=1)
    repo.git("reset", "-q", "--hard", "HEAD~1")
    p = paths.resolve()
    runner = Runner(p)
    try:
        assert runner.schedules.refs_seconds == 60.0
        runner.refs_once()
        assert runner.state.read()["refs"]["result"]["queued"] == ["acme:main"]
        runner.drain_once()
    finally:
        runner.session.close()
    assert _label(run_json)["commit_oid"] == repo.head()  # type: ignore[index]


def test_refs_seconds_is_validated(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pytest

    from monodex.errors import UsageError

    assert config.parse({"schedules": {"refs_seconds": 30}}, "c").schedules.refs_seconds == 30.0
    with pytest.raises(UsageError, match="schedules.refs_seconds"):
        config.parse({"schedules": {"refs_seconds": 0}}, "c")


def _topic(git_repo, run_json):  # type: ignore[no-untyped-def]
    """main indexed, and branch `topic` (one commit more) indexed as label `topic`."""
    repo = _repo(git_repo, run_json, more=1)
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("src/topic.ts", "export const topic = 'work in progress on the topic branch';\n")
    repo.commit("topic")
    repo.git("checkout", "-q", "main")
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "topic", "--commit", "topic", "--json")
    assert code == 0, err
    return repo


def test_a_deleted_branch_is_marked_then_removed_after_the_grace_period(
    git_repo, run_json, open_session
) -> None:  # type: ignore[no-untyped-def]
    repo = _topic(git_repo, run_json)
    queue = spool.default(paths.resolve().state_dir)
    t0 = 1_800_000_000.0
    with open_session() as s:
        background.poll_branches(s, queue, now=t0)  # seen with its branch
    repo.git("branch", "-q", "-D", "topic")
    with open_session() as s:
        assert background.poll_branches(s, queue, now=t0 + 60)["marked"] == ["acme:topic"]
        assert background.poll_branches(s, queue, now=t0 + 2 * DAY)["removed"] == []
    assert _label(run_json, "topic")["branch_deleted_at"] == int(t0 + 60)  # type: ignore[index]
    code, out, _ = run_json("status", "--json")
    row = next(r for r in out["labels"] if r["label"] == "topic")
    assert row["freshness"] == "branch gone"
    assert row["branch_gone"] == {"since": int(t0 + 60), "removed_after": int(t0 + 60) + 3 * DAY}
    code, text, _ = run_json("status")
    assert "branch gone since 2027-01-15 08:01 UTC, removed after 2027-01-18 08:01 UTC" in text
    code, out, _ = run_json("doctor", "--json")
    check = next(c for c in out["checks"] if c["check"] == "deleted branches")
    assert (
        check["level"] == "warn" and "acme:topic (branch gone since 2027-01-15 08:01 UTC" in check["detail"]
    )
    code, out, _ = run_json(
        "search", "--catalog", "acme", "--label", "topic", "--text", "topic", "--fresh", "5", "--json"
    )
    assert out["freshness"]["branch_gone"] == {"branch": "topic", "since": int(t0 + 60)}
    code, text, _ = run_json(
        "search", "--catalog", "acme", "--label", "topic", "--text", "topic", "--fresh", "5"
    )
    assert "branch topic is gone since 2027-01-15 08:01 UTC" in text and "waited" not in text
    with open_session() as s:
        report = background.poll_branches(s, queue, now=t0 + 60 + 3 * DAY)
    assert report["removed"] == ["acme:topic"]
    assert _label(run_json, "topic") is None and _label(run_json, "main") is not None
    assert "src/topic.ts" not in str(run_json("verify", "--json")[1])  # its chunks went with it
    # removed because its branch went, not by the user: a new `topic` branch is tracked again
    assert "topic" not in known_labels.removed(paths.resolve().state_dir, "acme")


def test_a_branch_recreated_within_the_grace_period_costs_nothing(git_repo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = _topic(git_repo, run_json)
    tip = repo.git("rev-parse", "topic")
    queue = spool.default(paths.resolve().state_dir)
    with open_session() as s:
        background.poll_branches(s, queue, now=1000.0)
        repo.git("branch", "-q", "-D", "topic")
        assert background.poll_branches(s, queue, now=1001.0)["marked"] == ["acme:topic"]
        repo.git("branch", "-q", "topic", tip)
        report = background.poll_branches(s, queue, now=1002.0)
    assert report["unmarked"] == ["acme:topic"] and report["queued"] == []  # same commit: nothing to do
    row = _label(run_json, "topic")
    assert row is not None and "branch_deleted_at" not in row and row["commit_oid"] == tip


def test_a_label_of_a_tag_is_never_taken_for_a_deleted_branch(git_repo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = _repo(git_repo, run_json, more=1)
    repo.git("tag", "v1")
    assert run_json("crawl", "--catalog", "acme", "--label", "v1", "--commit", "v1", "--json")[0] == 0
    with open_session() as s:
        report = background.poll_branches(s, spool.default(paths.resolve().state_dir), now=1e9 + 10 * DAY)
    assert report["marked"] == [] and report["removed"] == []
    assert _label(run_json, "v1") is not None


def test_track_all_local_makes_hooks_follow_every_branch(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    from monodex.hooks import policy

    _repo(git_repo, run_json, more=0)
    code, out, _ = run_json("catalog", "track", "acme", "--all-local", "--json")
    assert code == 0 and out["track"] == ["*"]
    cat = config.load(paths.resolve()).catalogs["acme"]
    for branch in ("scratch", "users/ana/try-this"):
        label = names.label_for_branch(branch)
        assert policy.tracked(branch, label, patterns=cat.track, default_branch="main", indexed=set())
    code, _, err = run_json("catalog", "track", "acme")
    assert code == 2 and "GLOB or --all-local" in err


def test_search_fresh_on_a_label_with_no_branch_says_so_instead_of_waiting(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = _topic(git_repo, run_json)
    repo.git("branch", "-q", "-D", "topic")  # no runner saw it go: not marked yet
    search = ("search", "--catalog", "acme", "--label", "topic", "--text", "topic", "--fresh", "5")
    code, text, _ = run_json(*search)
    assert code == 0 and "no branch maps to this label" in text and "waited" not in text
