"""The runner owns the shard and serves the CLI over its unix socket: a real runner process,
the real CLI, the real Edge shard (a local open would fail on the runner's lock, so an answer
proves the socket path)."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time

import pytest
from monodex.indexer.store.edge import EdgeStore
from monodex.scheduler.server import wait_listening

from monodex.disk import paths
from monodex.errors import MonodexError, UsageError
from monodex.main import main
from monodex.runner import rpc
from monodex.settings import config

TS = "export function answer(): number {\n  return %d;\n}\n"


@pytest.fixture
def repo(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files({"src/answer.ts": TS % 0, "README.md": "# Answers\n\nThe answer service.\n"})


@pytest.fixture
def runner(repo, start_runner) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    proc = start_runner(0.3)
    # It listens before its start-up refs check: a commit a test makes on main before that check
    # would be refreshed by the runner itself (and a crawl handed to it then finds nothing to embed).
    state = paths.resolve().state_dir / "runner-state.json"
    deadline = time.monotonic() + 60
    while not (state.exists() and "refs" in json.loads(state.read_text())):
        assert time.monotonic() < deadline, "the runner never ran its start-up refs check"
        time.sleep(0.05)
    return proc  # type: ignore[no-any-return]


def _cli(capsys, *args: str) -> tuple[int, dict[str, object], str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else {}), err


def test_socket_is_private_and_the_shard_is_owned_by_the_runner(runner, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from monodex.indexer.store import edge

    monkeypatch.setattr(edge, "LOCK_WAIT_SECONDS", 0.2)
    p = paths.resolve()
    assert stat.S_IMODE(p.socket_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(p.socket_path.parent.stat().st_mode) == 0o700
    assert rpc.call(p, "ping", {}) == {"pid": runner.pid}
    with pytest.raises(MonodexError, match=f"pid {runner.pid}"):
        EdgeStore(p.shard_dir, config.load(p).qdrant.collection).info()


def test_search_view_labels_through_the_runner_match_the_local_answers(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    queries = [
        ("search", "--catalog", "acme", "--label", "main", "--text", "the answer function"),
        ("labels",),
    ]
    proc = subprocess.Popen([sys.executable, "-m", "monodex", "runner"], stderr=subprocess.DEVNULL)
    try:
        assert wait_listening(paths.resolve().socket_path, timeout=60)
        remote = [_cli(capsys, *q)[1] for q in queries]
        file_id = remote[0]["results"][0]["file_id"]  # type: ignore[index]
        remote_view = _cli(capsys, "view", "--catalog", "acme", "--label", "main", "--id", str(file_id))[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    # after it: its start-up refs check recorded the label's branch (`labels` shows it)
    local = [_cli(capsys, *q)[1] for q in queries]
    local_view = _cli(capsys, "view", "--catalog", "acme", "--label", "main", "--id", str(file_id))[1]
    assert remote == local and remote_view == local_view
    assert not paths.resolve().socket_path.exists()  # removed on a clean stop


def test_errors_come_back_with_the_same_exit_code_and_advice(runner, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = _cli(capsys, "search", "--catalog", "acme", "--label", "nope", "--text", "x")
    assert code == 2 and "label 'nope' of catalog 'acme' is not indexed" in err and "monodex labels" in err
    code, _, err = _cli(capsys, "view", "--catalog", "acme", "--label", "main", "--id", "0123456789abcdef")
    assert code == 2 and "not in label 'main'" in err
    # a bad field found by the runner crosses the socket whole: the CLI names its own flag
    code, _, err = _cli(
        capsys, "search", "--catalog", "acme", "--label", "main", "--text", "x", "--lang", "json"
    )
    assert code == 2 and "has no json files" in err and "pass --lang with one of those, or drop --lang" in err
    with pytest.raises(UsageError, match="unknown operation"):
        rpc.call(paths.resolve(), "drop-everything", {})


def test_a_foreground_crawl_is_handed_to_the_runner_and_follows_its_progress(runner, repo, capsys) -> None:  # type: ignore[no-untyped-def]
    for i in range(6):
        repo.write(f"src/gen/f{i}.ts", "".join(TS % (i * 10 + j) for j in range(4)))
    sha = repo.commit("more answers")
    seen: list[tuple[int, int, int]] = []
    result = rpc.call(
        paths.resolve(),
        "crawl",
        {"catalog": "acme", "label": "feature", "commit": "HEAD", "working_dir": False},
        on_progress=lambda *a: seen.append(a),
    )
    assert result is not None and result["commit"] == sha and result["files_embedded"] == 6
    assert seen and seen[-1][0] == seen[-1][1] == 6  # the last event is the finished crawl
    code, out, _ = _cli(capsys, "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")
    assert code == 0 and out["commit"] == sha and out["files_embedded"] == 0  # all shared with feature
    labels = {r["label"]: r for r in _cli(capsys, "labels")[1]["labels"]}  # type: ignore[union-attr]
    assert labels["main"]["commit_oid"] == labels["feature"]["commit_oid"] == sha


def test_a_stale_socket_file_is_ignored_and_the_cli_works_alone(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    p.socket_path.parent.mkdir(parents=True, exist_ok=True)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(p.socket_path))  # bound, never listening: what a killed runner leaves behind
    dead.close()
    assert rpc.call(p, "ping", {}) is None
    code, out, _ = _cli(capsys, "search", "--catalog", "acme", "--label", "main", "--text", "answer")
    assert code == 0 and out["results"]


def test_malformed_requests_get_an_error_not_a_dead_runner(runner) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    for raw in (b"not json\n", b"[1, 2]\n", json.dumps({"v": 99, "op": "ping"}).encode() + b"\n"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(p.socket_path))
            s.sendall(raw)
            answer = json.loads(s.makefile("rb").readline())
        assert answer["ok"] is False and answer["error"]["problem"]
    assert rpc.call(p, "ping", {}) == {"pid": runner.pid}


def test_status_reports_the_runner_with_uptime_and_socket(runner, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = _cli(capsys, "status")
    run = out["runner"]
    assert code == 0 and run["running"] is True and run["pid"] == runner.pid  # type: ignore[index]
    assert run["uptime_seconds"] >= 0 and run["socket"] == str(paths.resolve().socket_path)  # type: ignore[index]
    assert out["labels"][0]["label"] == "main"  # type: ignore[index]  # answered by the runner


def test_schedules_come_from_config_json_and_bad_cron_is_a_usage_error(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    from monodex.scheduler.runner import Runner

    p = paths.resolve()
    raw = json.loads(p.config_file.read_text())
    raw["schedules"] = {"drain_seconds": 5, "gc": "15 1 * * *", "verify": "45 1 * * 0"}
    p.config_file.write_text(json.dumps(raw))
    assert Runner(p).schedules == config.Schedules(5.0, "15 1 * * *", "45 1 * * 0")
    raw["schedules"] = {"gc": "61 * * * *"}
    p.config_file.write_text(json.dumps(raw))
    capsys.readouterr()
    code = main(["runner"])
    err = capsys.readouterr().err
    assert code == 2 and "schedules.gc" in err and "61 * * * *" in err
    raw["schedules"] = {"gc": "daily"}
    p.config_file.write_text(json.dumps(raw))
    code, _, err = _cli(capsys, "status")
    assert code == 2 and "schedules.gc" in err and "five fields" in err
    assert not p.socket_path.exists() and os.path.exists(p.config_file)


def test_searches_are_answered_while_the_runner_is_crawling(runner, repo, capsys, single_phase) -> None:  # type: ignore[no-untyped-def]
    import threading

    single_phase()  # the runner reads its config per request: this crawl embeds before it returns
    for i in range(40):  # long enough that the crawl is still embedding when we search
        repo.write(f"src/gen/f{i}.ts", "".join(TS % (i * 100 + j) for j in range(10)))
    repo.commit("many answers")
    started = threading.Event()
    result: list[object] = []
    job = {"catalog": "acme", "label": "big", "commit": "HEAD", "working_dir": False}
    crawl = threading.Thread(
        target=lambda: result.append(
            rpc.call(paths.resolve(), "crawl", job, on_progress=lambda *a: started.set())
        )
    )
    crawl.start()
    try:
        assert started.wait(60)
        code, out, _ = _cli(capsys, "search", "--catalog", "acme", "--label", "main", "--text", "answer")
        still_crawling = crawl.is_alive()
    finally:
        crawl.join(timeout=300)
    assert code == 0 and out["results"] and still_crawling
    assert result and result[0]["files_embedded"] == 40  # type: ignore[index]
