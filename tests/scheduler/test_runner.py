"""hooks -> spool -> runner -> index, with real hooks, the real indexer and a real runner process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from monodex.indexer.ops import background
from monodex.indexer.session import Session
from monodex.scheduler import jobs
from monodex.scheduler.service import render

from monodex.disk import paths
from monodex.main import main
from monodex.runner.spool import Spool
from monodex.settings import config

TS = "export function answer(): number {\n  return %d;\n}\n"


def wait_until(predicate, timeout: float = 30.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return predicate()


@pytest.fixture
def repo(crawl_files, capsys):  # type: ignore[no-untyped-def]
    r = crawl_files({"src/answer.ts": TS % 0, "README.md": "# Answers\n\nThe answer service.\n"})
    assert main(["hooks", "install", "--repo", str(r.path)]) == 0
    capsys.readouterr()
    return r


def _refresh(request):  # type: ignore[no-untyped-def]
    with Session(config.load(paths.resolve()), paths.resolve()) as s:
        return background.refresh_label(s, request)


def _spool() -> Spool:
    return Spool(paths.resolve().spool_dir)


def _search(capsys, text: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["search", "--catalog", "acme", "--label", "main", "--text", text, "--json"]) == 0
    return json.loads(capsys.readouterr().out)["results"]


def _labels(capsys) -> dict[str, dict[str, object]]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["labels", "--json"]) == 0
    return {r["label"]: r for r in json.loads(capsys.readouterr().out)["labels"]}


def test_drain_refreshes_the_label_to_the_new_commit(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/answer.ts", TS % 42)
    sha = repo.commit("answer 42")
    assert wait_until(lambda: len(_spool().pending()) >= 1)
    report = jobs.drain(_spool(), _refresh)
    assert [s["commit"] for s in report.refreshed] == [sha] and report.failed == []
    assert _labels(capsys)["main"]["commit_oid"] == sha
    assert any("return 42" in str(r["text"]) for r in _search(capsys, "the answer function"))


def test_fifty_rapid_commits_coalesce_into_few_refreshes(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    for i in range(1, 51):
        repo.write("src/answer.ts", TS % i)
        repo.commit(f"answer {i}")
    assert wait_until(lambda: len(_spool().pending()) >= 50)
    report = jobs.drain(_spool(), _refresh)
    assert len(report.refreshed) == 1 and _spool().pending() == []
    assert _labels(capsys)["main"]["commit_oid"] == repo.head()
    assert any("return 50" in str(r["text"]) for r in _search(capsys, "the answer function"))


def test_a_failing_refresh_goes_back_with_backoff_and_shows_in_status(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo.write("src/answer.ts", TS % 7)
    repo.commit("answer 7")
    assert wait_until(lambda: len(_spool().pending()) >= 1)
    assert main(["catalog", "rm", "acme"]) == 0  # the refresh now fails: unknown catalog
    report = jobs.drain(_spool(), _refresh)
    assert report.refreshed == [] and report.failed[0]["attempts"] == 1
    assert "unknown catalog" in report.failed[0]["error"]
    assert jobs.drain(_spool(), _refresh).failed == []  # backoff
    capsys.readouterr()
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["spool"]["failed"] == 1 and status["runner"]["running"] is False
    assert "unknown catalog" in status["spool"]["errors"][0]["error"]


def _runner(repo) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    """A real runner process draining every 0.3 s; its log (stderr) kept for the test."""
    return subprocess.Popen(
        [sys.executable, "-m", "monodex", "runner", "--drain-seconds", "0.3"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=repo.path.parent,
    )


def test_runner_process_drains_hooks_and_stops_cleanly_on_sigterm(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    proc = _runner(repo)
    try:
        state = paths.resolve().state_dir
        assert wait_until(lambda: (state / "runner.pid").exists())
        repo.write("src/answer.ts", TS % 99)
        sha = repo.commit("answer 99")

        def refreshed() -> bool:
            try:
                data = json.loads((state / "runner-state.json").read_text())
            except (OSError, ValueError):
                return False
            # the drain that refreshed it has finished (an in-progress record alone is not enough:
            # a SIGTERM then interrupts it, and the label stays where it was)
            return bool(data.get("last_productive_drain", {}).get("result", {}).get("refreshed"))

        assert wait_until(refreshed, timeout=60)
        assert wait_until(lambda: not _spool().pending(), timeout=30)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert not (paths.resolve().state_dir / "runner.pid").exists()
    assert _labels(capsys)["main"]["commit_oid"] == sha
    done = [line for line in _log_lines() if line["event"] == "refresh.done"]
    assert done and done[-1]["label"] == "acme:main" and done[-1]["commit"] == sha
    assert done[-1]["mode"] == "incremental" and done[-1]["files_embedded"] == 1
    assert {
        "files_total",
        "files_reused",
        "files_removed",
        "chunks_embedded",
        "chunks_reused",
        "seconds",
    } <= set(done[-1])


def _log_lines() -> list[dict[str, object]]:
    text = (paths.resolve().log_dir / "runner.log").read_text()
    return [json.loads(line) for line in text.splitlines()]


def _status(capsys, *args: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["status", *args]) == 0
    out = capsys.readouterr().out
    return json.loads(out) if "--json" in args else {"text": out}


def _many_files(repo) -> str:  # type: ignore[no-untyped-def]
    # ~4 chunks a file, ~240 in all: embedding (~21 chunks/s on 2 cores) lasts long enough to watch
    for i in range(60):
        repo.write(f"src/gen/file{i}.ts", "".join(TS % (i * 1000 + j) for j in range(48)))
    return repo.commit("many files")  # type: ignore[no-any-return]


def _state() -> dict[str, object]:
    try:
        return json.loads((paths.resolve().state_dir / "runner-state.json").read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return {}


def test_a_sigterm_while_the_runner_starts_stops_it_cleanly(repo) -> None:  # type: ignore[no-untyped-def]
    """systemctl stop (or a test's teardown) right after the start: the runner still opens the
    shard and loads the model, then stops with 0 and its pid file gone; it was killed (-15)."""
    pid_file = paths.resolve().state_dir / "runner.pid"
    proc = _runner(repo)
    deadline = time.monotonic() + 30
    while not pid_file.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)  # the pid file is written just before the shard and the model load
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert not pid_file.exists()
    events = [json.loads(line)["event"] for line in err.splitlines() if line.startswith("{")]
    assert "runner.stopping" in events and events[-1] == "runner.stopped"


def test_status_shows_the_refresh_in_progress_and_a_stop_records_it_interrupted(
    repo, capsys, single_phase
) -> None:  # type: ignore[no-untyped-def]
    """status used to show 0 pending and the last drain "ok" during a refresh, and "ok, refreshed 0"
    after a SIGTERM cut it short."""
    single_phase()  # a refresh that takes seconds at this size; phase one alone is a blink
    sha = _many_files(repo)
    cmd = [sys.executable, "-m", "monodex", "runner", "--drain-seconds", "0.3"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:

        def embedding() -> bool:
            rf = _state().get("refresh")
            return (
                isinstance(rf, dict)
                and bool(rf.get("files_total"))
                and 0 < rf["files_done"] < rf["files_total"]
            )

        assert wait_until(embedding, timeout=120), _state()
        status = _status(capsys, "--json")
        rf = status["refresh"]
        assert isinstance(rf, dict) and rf["state"] == "running" and rf["label"] == "acme:main"
        assert rf["commit"] == sha and rf["files_total"] == 60 and rf["started_at"] <= time.time()
        assert status["spool"] == {**status["spool"], "pending": 0, "claimed": 1}  # type: ignore[dict-item]
        assert [lb["refreshing"] for lb in status["labels"]] == [True]  # type: ignore[attr-defined]
        text = _status(capsys)["text"]
        assert f"refreshing acme:main to {sha[:12]}: " in str(text) and "files embedded" in str(text)
        assert "(refreshing)" in str(text)
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    drain = _state()["drain"]
    assert isinstance(drain, dict) and drain["ok"] is False and drain["outcome"] == "interrupted"
    assert drain["result"]["interrupted"]["label"] == "acme:main" and drain["result"]["refreshed"] == 0
    status = _status(capsys, "--json")
    assert status["refresh"] is None and status["spool"]["pending"] == 1  # type: ignore[index]
    text = str(_status(capsys)["text"])
    assert "spool: 1 request queued, 0 failing; they run when the runner starts" in text
    assert "drain: INTERRUPTED at " in text and "pending" not in text
    assert "maximum number of running instances" not in err
    log = _log_lines()
    assert "maximum number of running instances" not in json.dumps(log)
    assert [line["label"] for line in log if line["event"] == "refresh.interrupted"] == ["acme:main"]


def test_systemd_unit_renders_and_verifies(tmp_path: Path) -> None:
    unit = render(paths.resolve(), [tmp_path])
    assert f"ExecStart={sys.executable} -m monodex runner" in unit and "Restart=on-failure" in unit
    assert "NoNewPrivileges=true" in unit and str(tmp_path) in unit
    analyze = subprocess.run(
        ["sh", "-c", "command -v systemd-analyze"], capture_output=True, text=True
    ).stdout.strip()
    if not analyze:
        pytest.skip("systemd-analyze is not installed here (.ci/run installs it where apt has it)")
    f = tmp_path / "monodex-runner.service"
    f.write_text(unit)
    proc = subprocess.run(
        [analyze, "verify", "--user", str(f)],
        capture_output=True,
        text=True,
        env={**os.environ, "SYSTEMD_LOG_LEVEL": "err"},
    )
    assert "monodex-runner.service" not in proc.stderr or proc.returncode == 0, proc.stderr


def test_runner_killed_mid_refresh_converges_after_restart(repo, capsys, single_phase) -> None:  # type: ignore[no-untyped-def]
    """SIGKILL at any point: the claimed request is recovered and the next run converges."""
    single_phase()  # a refresh that takes seconds (kills in phase two: tests/faults/)
    for i in range(30):  # enough new files that the refresh is still embedding when killed
        repo.write(f"src/gen/file{i}.ts", "".join(TS % (i * 100 + j) for j in range(12)))
    sha = repo.commit("many files")
    assert wait_until(lambda: len(_spool().pending()) >= 1)
    cmd = [sys.executable, "-m", "monodex", "runner", "--drain-seconds", "0.3"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=repo.path.parent)
    claimed = paths.resolve().spool_dir / "claimed"
    assert wait_until(
        lambda: claimed.exists() and any(claimed.iterdir()) and "refresh" in _state(), timeout=60
    )
    proc.kill()  # claimed, so mid-refresh: loading the model alone takes longer than this
    proc.wait(timeout=30)
    assert any(claimed.iterdir())  # left claimed: the crash is visible in the spool
    status = _status(capsys, "--json")
    assert status["refresh"]["state"] == "interrupted"  # type: ignore[index]  # not "running": it is dead
    assert status["spool"]["claimed"] == 1 and status["runner"]["running"] is False  # type: ignore[index]
    text = str(_status(capsys)["text"])
    assert "interrupted refresh of acme:main" in text and "they run when the runner starts" in text
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=repo.path.parent)
    try:

        def converged() -> bool:  # noqa: ANN202
            if _spool().pending() or (claimed.exists() and any(claimed.iterdir())):
                return False
            try:
                state = json.loads((paths.resolve().state_dir / "runner-state.json").read_text())
            except (OSError, ValueError):
                return False
            last = state.get("last_productive_drain", {})
            return bool(last.get("result", {}).get("refreshed")) and last["started_at"] > restarted

        restarted = time.time()
        assert wait_until(converged, timeout=180)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    labels = _labels(capsys)
    assert labels["main"]["commit_oid"] == sha and labels["main"]["crawl_complete"] is True
    assert labels["main"]["chunks"] >= 30


def test_nightly_jobs_collect_garbage_and_verify_by_recrawling(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    import threading

    from monodex.indexer.store.base import Filter, Match

    p = paths.resolve()
    with Session(config.load(p), p) as s:
        ids = [r.id for r in s.store.scroll(Filter(must=(Match("source_type", "code"),)))]
        s.store.set_payload(ids[:1], {"active_label_ids": []})  # drift: a chunk left the label
    with Session(config.load(p), p, shared=True) as s:
        gc_report = background.nightly_gc(s)
        verified = background.nightly_verify(s, threading.Event())
    assert gc_report["catalogs"]["acme"]["unlabeled_chunks"] == 1
    assert gc_report["optimize_seconds"] >= 0
    [row] = verified["labels"]
    assert row["label"] == "main" and row["drift"]["missing_files"] == 1 and row["ok_after_repair"] is True
    assert any("return 0" in str(r["text"]) for r in _search(capsys, "the answer function"))


def test_the_nightly_gc_job_prunes_old_quarantined_entries_and_keeps_recent_ones(repo) -> None:  # type: ignore[no-untyped-def]
    """Issue 35, item 6: the runner's gc job prunes spool/quarantine/ (the hook never does)."""
    from monodex.scheduler.runner import Runner

    from monodex.runner.spool import QUARANTINE_KEEP, QUARANTINE_MAX_AGE_SECONDS

    q = _spool().quarantine
    q.mkdir(parents=True, exist_ok=True)
    old = time.time() - QUARANTINE_MAX_AGE_SECONDS - 3600
    names = [f"{i:03d}-bad.json" for i in range(QUARANTINE_KEEP + 30)]
    for i, name in enumerate(names):  # the first 30 are a month old, the rest from today
        for path in (q / name, q / (name + ".reason")):
            path.write_text("{}")
            if i < 30:
                os.utime(path, (old + i, old + i))
    runner = Runner(paths.resolve())
    try:
        runner.gc_once()
        result = runner.state.read()["gc"]["result"]
    finally:
        runner.session.close()
    assert result["quarantine_pruned"] == 30
    assert [e.name for e in _spool().quarantined()] == names[30:]


def test_the_signal_handler_takes_no_lock_the_interrupted_code_may_hold() -> None:
    """A signal runs its handler between two bytecodes of the main thread, which may be holding
    the server's cancel lock or the log's write lock at that moment: a handler that took them
    itself would hang the runner for good. It sets the flag; a thread does the rest."""
    import threading

    from monodex.scheduler.runner import Runner

    runner = Runner(paths.resolve())
    try:
        with runner.server._cancels_lock:  # what the interrupted main thread may hold
            handler = threading.Thread(target=runner._on_signal, args=(signal.SIGTERM, None), daemon=True)
            handler.start()
            handler.join(timeout=5)
            assert not handler.is_alive() and runner.stop.is_set()
        assert runner._stop_said.wait(timeout=5)  # said and cancelled once the lock was free
    finally:
        runner._ended.set()
        runner.session.close()


def test_a_runner_that_finds_a_crash_collects_what_it_left_once_its_queue_is_empty(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    """A refresh killed after storing new files, then the branch moved on without them while
    the runner was down: the retry goes to the new head, and the versions the killed refresh
    stored are held by nothing. verify reports them (orphan_chunks) until the nightly gc; a
    runner that recovered a claimed request collects them once its queue is empty."""
    from monodex.indexer.write import crawlrun
    from monodex.scheduler.runner import Runner

    from tests.conftest import Killed, KilledAt

    for i in range(6):
        repo.write(f"src/gen/file{i}.ts", TS % (i + 100))
    sha = repo.commit("new files")
    p = paths.resolve()
    cfg = config.load(p)
    spool = _spool()
    [entry] = wait_until(spool.pending)
    (spool.claimed / entry.name).parent.mkdir(parents=True, exist_ok=True)
    os.replace(entry, spool.claimed / entry.name)  # claimed by the runner that dies below
    with Session(cfg, p) as s:
        killed = Session(cfg, p, store=KilledAt(s.store, 2), engine=s.engine)  # chunks stored, no delta
        with pytest.raises(Killed):
            crawlrun.crawl(killed, crawlrun.Request(cfg.catalogs["acme"], "main", sha), dense="later")
    for i in range(6):
        repo.remove(f"src/gen/file{i}.ts")
    head = repo.commit("the new files go again")
    # The hook enqueues in the background: had its entry landed while the drain below ran, the
    # queue would not be empty after it and the collection would wait for the next drain.
    assert wait_until(spool.pending)
    runner = Runner(p)
    try:
        assert runner.recover() == 1
        runner.drain_once()
    finally:
        runner.session.close()
    assert _labels(capsys)["main"]["commit_oid"] == head
    capsys.readouterr()
    code = main(["verify", "--json"])
    rows = json.loads(capsys.readouterr().out)["labels"]
    assert code == 0 and [r["drift"]["orphan_chunks"] for r in rows] == [0], rows
