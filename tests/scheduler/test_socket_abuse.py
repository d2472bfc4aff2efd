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

from monodex import requests
from monodex.disk import paths
from monodex.errors import MonodexError, UsageError
from monodex.main import main
from monodex.runner import rpc, runnerpid


@pytest.fixture
def indexed(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files({"src/a.ts": "export const a = 1;\n"})


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
    from monodex.indexer.ops import answers
    from monodex.indexer.session import Session

    from monodex.settings import config

    p = paths.resolve()
    with Session(config.load(p), p) as s, pytest.raises(UsageError, match="search text"):
        answers.run(
            s, requests.parse("search", {"catalog": "acme", "label": "main", "text": long, "limit": 3})
        )


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
        "import sys; from monodex.disk import paths; from monodex.commands import status; "
        "status.collect(paths.resolve()); print('apscheduler' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# A line of control characters, which JSON escapes as 6 bytes each: an answer ~4x its text.
_ESCAPED = 'export const s%d = "quoted path %s";\n'


@pytest.fixture
def bulky(git_repo, capsys):  # type: ignore[no-untyped-def]
    """A label whose broad search answers ~600 KB: more than a unix socket's send buffer holds."""
    files = {f"src/f{f}.ts": "".join(_ESCAPED % (i, "\x01" * 40) for i in range(400)) for f in range(8)}
    r = git_repo(files, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    crawl = ["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"]
    assert main(crawl) == 0  # searchable by its words; the runner's fill job adds vectors meanwhile
    capsys.readouterr()
    return r


def _stuck_client(path: Path) -> socket.socket:
    """Asks for a large answer through a tiny receive buffer and never reads it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(str(path))
    args = {"catalog": "acme", "label": "main", "text": "quoted path", "limit": 1000, "per_file": 100}
    s.sendall(
        json.dumps({"v": rpc.VERSION, "op": "search", "args": {**args, "explain": True}}).encode() + b"\n"
    )
    return s


def test_clients_that_stop_reading_hold_no_worker(bulky, start_runner) -> None:  # type: ignore[no-untyped-def]
    """Eight clients that never read a large answer held all eight read workers for the 60 s
    write timeout: every `labels` and `search` through the runner then took ~57 s."""
    start_runner(30)
    p = paths.resolve()
    with rpc.connect(p) as probe:  # the answer really is larger than what the socket buffers
        probe.sendall(json.dumps({"v": rpc.VERSION, "op": "search", "args": {
            "catalog": "acme", "label": "main", "text": "quoted path", "limit": 1000, "per_file": 100,
            "explain": True}}).encode() + b"\n")  # fmt: skip
        size = len(probe.makefile("rb").readline())
        assert size > 2 * probe.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF), size  # ~200 KB
    stuck = [_stuck_client(p.socket_path) for _ in range(server.READ_WORKERS + 2)]
    try:
        time.sleep(3)  # their answers are made and stuck in the sockets' buffers
        with ThreadPoolExecutor(1) as pool:
            for _ in range(3):
                started = time.monotonic()
                future = pool.submit(rpc.call, p, "labels", {})
                assert future.result(timeout=90)["labels"][0]["label"] == "main"
                assert time.monotonic() - started < 2.0
                found = rpc.call(
                    p, "search", {"catalog": "acme", "label": "main", "text": "path", "limit": 3}
                )
                assert found is not None and len(found["results"]) == 3
    finally:
        for s in stuck:
            s.close()


def _raw(path: Path, body: bytes) -> dict:  # type: ignore[type-arg]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(path))
        s.sendall(body + b"\n")
        line = s.makefile("rb").readline()
    assert line, "the runner closed the connection without an answer"
    return json.loads(line)  # type: ignore[no-any-return]


def test_malformed_wire_requests_get_an_answer_naming_the_problem(runner) -> None:  # type: ignore[no-untyped-def]
    """Deep nesting closed the connection with no answer; `"args": [1]` was answered "different
    protocol versions"."""
    p = paths.resolve()
    deep = _raw(p.socket_path, b'{"v": 2, "op": "labels", "args": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert deep["ok"] is False and "nested too deeply" in deep["error"]["problem"]
    listed = _raw(p.socket_path, json.dumps({"v": rpc.VERSION, "op": "labels", "args": [1]}).encode())
    assert listed["ok"] is False and listed["error"]["exit"] == 2
    assert listed["error"]["problem"] == '"args" must be an object, got list'
    assert rpc.call(p, "ping", {}) == {"pid": runner.pid}
