"""Bad requests never reach the index: a malformed spool entry is quarantined while the good ones
drain, and a label outside the grammar is refused by the operation layer (socket and CLI alike)."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict

import pytest
from monodex.indexer.ops import answers, background
from monodex.indexer.session import Session
from monodex.scheduler import jobs

from monodex import requests
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.main import main
from monodex.runner import rpc, runnerpid
from monodex.runner.spool import Request, Spool
from monodex.settings import config

TS = "export function answer(): number {\n  return %d;\n}\n"


@pytest.fixture
def repo(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files({"src/answer.ts": TS % 0})


def wait_until(predicate, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := predicate():
            return value
        time.sleep(0.1)
    return predicate()


def _labels(capsys) -> set[str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["labels", "--json"]) == 0
    return {r["label"] for r in json.loads(capsys.readouterr().out)["labels"]}


def test_a_crawl_op_with_a_label_outside_the_grammar_is_a_usage_error(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        for label in ("Bad Label:x", 7):
            with pytest.raises(UsageError) as err:
                answers.run(s, requests.parse("crawl", {"catalog": "acme", "label": label, "commit": "HEAD"}))
            assert err.value.exit_code == 2 and "label" in err.value.problem and err.value.hint
    assert _labels(capsys) == {"main"}


def test_the_socket_refuses_a_label_outside_the_grammar(repo, start_runner, capsys) -> None:  # type: ignore[no-untyped-def]
    start_runner(0.3)
    with pytest.raises(UsageError, match="invalid label name 'Bad Label:x': whitespace is not allowed"):
        rpc.call(paths.resolve(), "crawl", {"catalog": "acme", "label": "Bad Label:x", "commit": "HEAD"})
    assert _labels(capsys) == {"main"}


def test_a_spool_entry_with_a_bad_label_is_quarantined_and_the_good_one_refreshes(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    sha = repo.head()
    good = Request("acme", "dev", str(repo.path), "refs/heads/dev", sha, "cli", created_at=2.0)
    s = Spool(paths.resolve().spool_dir)
    s.enqueue(good)
    bad = {**asdict(good), "label": "Bad Label:x", "created_at": 1.0}
    (s.new / "0-bad.json").write_text(json.dumps(bad))

    def refresh_one(request: Request) -> dict[str, object]:
        with Session(config.load(paths.resolve()), paths.resolve()) as session:
            return background.refresh_label(session, request)

    report = jobs.drain(s, refresh_one)
    assert [r["label"] for r in report.refreshed] == ["dev"] and report.failed == []
    assert [(q.name, q.reason) for q in s.quarantined()] == [
        ("0-bad.json", "invalid label name 'Bad Label:x': whitespace is not allowed")
    ]
    assert _labels(capsys) == {"main", "dev"}


def _run_json(capsys, *argv: str) -> tuple[int, dict]:  # type: ignore[no-untyped-def, type-arg]
    capsys.readouterr()
    code = main(list(argv))
    return code, json.loads(capsys.readouterr().out)


def test_quarantined_entries_show_in_status_and_doctor_with_reasons_and_the_fix(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    s = Spool(paths.resolve().spool_dir)
    s.enqueue(Request("acme", "main", str(repo.path), "refs/heads/main", repo.head(), "cli", created_at=1.0))
    s.new.joinpath("0-bad.json").write_text("{not json")
    s.new.joinpath("1-bad.json").write_text(json.dumps({"schema": 1, "catalog": 7}))
    assert s.claim(now=10.0) is not None  # what a drain does: the good one is taken, the bad set aside
    code, status = _run_json(capsys, "status", "--json")
    assert code == 0 and status["spool"]["quarantined"] == 2
    reasons = [q["reason"] for q in status["spool"]["quarantine"]]
    assert reasons[0].startswith("not JSON") and reasons[1].startswith("missing fields")
    assert f"rm {s.quarantine}/*" in status["spool"]["quarantine_hint"]
    code, doctor = _run_json(capsys, "doctor", "--json")
    [check] = [c for c in doctor["checks"] if c["check"] == "spool"]
    assert check["level"] == "warn" and check["detail"].startswith(
        "2 malformed requests set aside: 0-bad.json: not JSON"
    )
    assert f"rm {s.quarantine}/*" in check["hint"]
    capsys.readouterr()
    assert main(["status"]) == 0
    text = capsys.readouterr().out
    assert "spool: 2 malformed requests set aside in" in text and "  1-bad.json: missing fields" in text


def test_an_unwritable_spool_is_an_error_in_status_doctor_and_the_runner_log(
    repo, start_runner, capsys
) -> None:  # type: ignore[no-untyped-def]
    """It used to stall in silence: every drain raised inside APScheduler, status said the last
    drain was ok and doctor was all green. (A file where a folder belongs: root ignores modes.)"""
    p = paths.resolve()
    s = Spool(p.spool_dir)
    s.enqueue(Request("acme", "dev", str(repo.path), "refs/heads/dev", repo.head(), "cli", created_at=1.0))
    s.claimed.rmdir()
    s.claimed.write_text("in the way")
    start_runner(0.3)

    def drain_failed() -> dict | None:  # type: ignore[type-arg]
        try:
            drain = json.loads((p.state_dir / "runner-state.json").read_text()).get("drain")
        except (OSError, ValueError):
            return None
        return drain if drain and drain["outcome"] == "failed" else None

    drain = wait_until(drain_failed, timeout=60)
    assert (
        drain
        and drain["ok"] is False
        and f"cannot take requests from the spool {s.root}" in drain["result"]["error"]
    )
    code, status = _run_json(capsys, "status", "--json")
    [problem] = status["problems"]
    assert problem["problem"] == f"cannot write to {s.claimed}: {s.claimed} is not a folder"
    assert "chown -R " in problem["hint"] and f"chmod -R u+rwX {s.claimed}" in problem["hint"]
    assert status["jobs"]["drain"]["outcome"] == "failed"
    code, doctor = _run_json(capsys, "doctor", "--json")
    levels = {c["check"]: c for c in doctor["checks"]}
    assert (
        code == 1
        and levels["state folders"]["level"] == "error"
        and "chmod" in levels["state folders"]["hint"]
    )
    assert levels["runner"]["level"] == "error" and "last drain failed" in levels["runner"]["detail"]
    log = [json.loads(line) for line in (p.log_dir / "runner.log").read_text().splitlines()]
    assert any(line["event"] == "spool.unwritable" and "chmod" in line["hint"] for line in log)
    first = drain["finished_at"]
    assert wait_until(lambda: (d := drain_failed()) is not None and d["finished_at"] > first + 1)
    failed = [
        json.loads(x) for x in (p.log_dir / "runner.log").read_text().splitlines() if '"job.failed"' in x
    ]
    assert len(failed) == 1 and "chown" in failed[0]["hint"]  # said once, not on every drain


def test_a_runner_that_cannot_start_says_why_in_runner_log(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    with runnerpid.hold(p):  # another runner holds the pid file: "already running"
        assert main(["runner"]) == 1
    [line] = [json.loads(x) for x in (p.log_dir / "runner.log").read_text().splitlines()]
    assert (
        line["event"] == "runner.failed"
        and line["error"] == f"a runner is already running (pid {os.getpid()})"
    )


def test_a_second_runner_says_why_once_when_stderr_is_a_pipe(repo) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: with stderr not a terminal (systemd, a script) the error came twice, as the
    runner's JSON log line and as the CLI's error. It is said once on stderr, and runner.log
    still has it."""
    import subprocess
    import sys

    p = paths.resolve()
    with runnerpid.hold(p):  # a runner holds the pid file
        done = subprocess.run(
            [sys.executable, "-m", "monodex", "runner"], capture_output=True, text=True, timeout=120
        )
    problem = f"a runner is already running (pid {os.getpid()})"
    assert done.returncode == 1 and done.stderr.count(problem) == 1, done.stderr
    assert done.stderr.startswith(f"error: {problem}"), done.stderr
    log = (p.log_dir / "runner.log").read_text()
    assert log.count(problem) == 1 and '"runner.failed"' in log


def test_a_dangling_link_in_the_spool_shows_in_status_and_doctor_then_is_set_aside(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """`status` died with FileNotFoundError (exit 1) on its stat(), doctor said nothing, and the
    drain read the link as "another runner took it" and left it there for good."""
    s = Spool(paths.resolve().spool_dir)
    s.enqueue(Request("acme", "main", str(repo.path), "refs/heads/main", repo.head(), "cli", created_at=1.0))
    s.new.joinpath("0-link.json").symlink_to(s.root / "nowhere.json")
    code, status = _run_json(capsys, "status", "--json")
    assert code == 0 and [u["name"] for u in status["spool"]["unreadable"]] == ["0-link.json"]
    assert "symbolic link" in status["spool"]["unreadable"][0]["reason"]
    code, doctor = _run_json(capsys, "doctor", "--json")
    [check] = [c for c in doctor["checks"] if c["check"] == "spool"]
    assert check["level"] == "warn" and "0-link.json: a symbolic link" in check["detail"]
    report = jobs.drain(s, lambda r: {"label": r.key})
    assert [r["label"] for r in report.refreshed] == ["acme:main"] and not s.due(time.time() + 10**6)
    code, status = _run_json(capsys, "status", "--json")
    assert status["spool"]["unreadable"] == [] and status["spool"]["quarantine"][0]["name"] == "0-link.json"


def test_requests_that_can_never_run_end_in_quarantine(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """An unknown catalog and a commit that never resolves used to retry forever, hourly."""
    from monodex.runner.spool import MAX_ATTEMPTS

    s = Spool(paths.resolve().spool_dir)
    s.enqueue(Request("gone", "main", "/nowhere", "refs/heads/main", "a" * 40, "cli", created_at=1.0))
    s.enqueue(Request("acme", "dev", str(repo.path), "refs/heads/nosuch", "b" * 40, "cli", created_at=2.0))

    def refresh_one(request: Request) -> dict[str, object]:
        with Session(config.load(paths.resolve()), paths.resolve()) as session:
            return background.refresh_label(session, request)

    clock = [time.time()]
    for _ in range(MAX_ATTEMPTS):
        report = jobs.drain(s, refresh_one, now=lambda: clock[0])
        assert len(report.failed) == 2 and report.refreshed == []
        clock[0] += 3601
    assert s.pending() == []
    reasons = sorted(q.reason for q in s.quarantined())
    assert reasons[0].startswith(f"gave up after {MAX_ATTEMPTS} attempts: unknown catalog 'gone'")
    assert reasons[1].startswith(f"gave up after {MAX_ATTEMPTS} attempts: ") and "b" * 12 in reasons[1]


def test_fresh_is_not_held_by_a_request_backing_off(repo, start_runner, capsys) -> None:  # type: ignore[no-untyped-def]
    """After an hour of failures the label's one coalesced request was due only in an hour:
    a new commit, and `search --fresh`, waited that long after the fault was fixed."""
    s = Spool(paths.resolve().spool_dir)
    old = Request("acme", "main", str(repo.path), "refs/heads/main", repo.head(), "cli", created_at=1.0)
    s.enqueue(
        Request(
            **{**asdict(old), "attempts": 12, "not_before": time.time() + 3600, "last_error": "disk full"}
        )
    )
    repo.write("src/answer.ts", TS % 42)
    sha = repo.commit("the answer")
    start_runner(0.3)
    argv = "search --catalog acme --label main --text answer --fresh 60 --json".split()
    code, out = _run_json(capsys, *argv)
    assert code == 0 and out["freshness"]["fresh"] is True and out["freshness"]["indexed_commit"] == sha
    assert out["freshness"]["wait"]["waited_seconds"] < 30
