"""The runner's socket under abuse (issue 12): a burst of CLIs, idle connections that never send,
an oversize request, a runner killed or stuck. A real runner process and the real CLI; a client
that wrongly opened the shard itself would fail on the runner's lock, so success proves routing."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from monodex.scheduler import server

from monodex import paths, requests, rpc, runnerpid
from monodex.errors import MonodexError, UsageError
from monodex.main import main


@pytest.fixture
def indexed(git_repo, capsys):  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    capsys.readouterr()
    return r


@pytest.fixture
def runner(indexed, start_runner) -> subprocess.Popen[str]:  # type: ignore[no-untyped-def]
    return start_runner(30)  # type: ignore[no-any-return]


def _proc_status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise AssertionError(key)


def _settled_threads(pid: int) -> int:
    """The runner's thread count once it stops changing (thread-per-connection servers spawn late)."""
    last, same = -1, 0
    while same < 5:
        now = _proc_status(pid, "Threads")
        same = same + 1 if now == last else 0
        last = now
        time.sleep(0.1)
    return last


def test_a_burst_of_parallel_clis_is_answered_by_the_runner(runner) -> None:  # type: ignore[no-untyped-def]
    def labels(_: int) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "monodex", "labels", "--json"]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)

    with ThreadPoolExecutor(50) as pool:
        runs = list(pool.map(labels, range(50)))
    failed = [r.stderr for r in runs if r.returncode != 0]
    assert failed == []
    assert all(json.loads(r.stdout)["labels"][0]["label"] == "main" for r in runs)


def test_idle_connections_do_not_make_threads_and_a_real_request_still_answers(runner) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    assert rpc.call(p, "ping", {}) == {"pid": runner.pid}
    before = _settled_threads(runner.pid)
    idle = []
    try:
        for _ in range(300):  # connected, never sending a byte
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(p.socket_path))
            idle.append(s)
        assert _settled_threads(runner.pid) <= before + server.WORKERS
        assert rpc.call(p, "labels", {})["labels"][0]["label"] == "main"  # type: ignore[index]
    finally:
        for s in idle:
            s.close()


def test_an_oversize_request_is_refused_without_buffering_it(runner) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    rss = _proc_status(runner.pid, "VmRSS")
    huge = json.dumps({"v": rpc.VERSION, "op": "labels", "args": {"junk": "x" * 10_000_000}}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(p.socket_path))
        try:
            s.sendall(huge + b"\n")
        except BrokenPipeError:
            pass  # the runner stopped reading and answered: the answer is still readable
        answer = json.loads(s.makefile("rb").readline())
    assert answer["ok"] is False and answer["error"]["exit"] == 2
    assert "request too large" in answer["error"]["problem"]
    assert f"max {rpc.MAX_REQUEST:,} bytes" in answer["error"]["problem"]
    assert _proc_status(runner.pid, "VmRSS") - rss < 100_000  # kB: nothing near 10 MB was kept
    with pytest.raises(UsageError, match="request too large"):  # the client says so before sending
        rpc.call(p, "labels", {"junk": "x" * 2_000_000})
    assert rpc.call(p, "ping", {}) == {"pid": runner.pid}


def test_the_search_text_is_bounded_the_same_way_locally_and_through_the_runner(indexed, capsys) -> None:  # type: ignore[no-untyped-def]
    long = "where is a " * (requests.MAX_QUERY_CHARS // 10 + 1)
    args = ("search", "--catalog", "acme", "--label", "main", "--text", long)
    assert main(list(args)) == 2
    assert f"at most {requests.MAX_QUERY_CHARS:,}" in capsys.readouterr().err
    from monodex.indexer import ops
    from monodex.indexer.session import Session

    from monodex import config

    p = paths.resolve()
    with Session(config.load(p), p) as s, pytest.raises(UsageError, match="search text"):
        ops.run(s, requests.parse("search", {"catalog": "acme", "label": "main", "text": long, "limit": 3}))


def test_a_live_runner_that_does_not_answer_is_an_error_not_a_local_open(indexed, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(rpc, "CONNECT_PATIENCE", 0.5)
    p = paths.resolve()
    with runnerpid.hold(p):  # this process plays a runner whose socket is gone
        with pytest.raises(MonodexError, match=f"the runner \\(pid {os.getpid()}\\) does not answer"):
            rpc.call(p, "labels", {})
    assert rpc.call(p, "labels", {}) is None  # no runner: the caller works locally


def test_a_killed_runner_leaves_the_cli_working_alone_even_if_its_pid_is_reused(indexed, capsys) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    runner = subprocess.Popen([sys.executable, "-m", "monodex", "runner"], stderr=subprocess.DEVNULL)
    assert server.wait_listening(p.socket_path, timeout=60)
    deadline = time.monotonic() + 30
    while runnerpid.running_pid(p) != runner.pid and time.monotonic() < deadline:
        time.sleep(0.05)
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=30)
    assert p.socket_path.exists() and runnerpid.pid_file(p).exists()  # both left behind
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        runnerpid.pid_file(p).write_text(str(sleeper.pid))  # its pid now names a live process
        assert runnerpid.running_pid(p) is None
        capsys.readouterr()
        assert main(["status", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["runner"]["running"] is False
        assert main(["labels", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["labels"][0]["label"] == "main"
    finally:
        sleeper.kill()
        sleeper.wait()


def test_status_reads_the_runner_without_loading_the_scheduler(indexed) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import sys; from monodex import paths; from monodex.commands import status; "
        "status.collect(paths.resolve()); print('apscheduler' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
