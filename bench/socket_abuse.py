"""The runner's socket under abuse (issue 12 item 6), on a throwaway one-file repository.

Usage: .venv/bin/python bench/socket_abuse.py [--clients 50] [--idle 1000] [--oversize-mb 10]
       [--stuck 16] [--reads 20]
Probes, against a real runner: N `monodex labels --json` processes at once (how many fail);
M connections that connect and never send (the runner's threads before and after, and whether a
normal request still answers); one request of S MB (the answer, and the runner's RSS before and
after); K clients that ask for a large answer (`limit 1000, per_file 100, explain`, ~0.5 MB)
through a tiny receive buffer and never read it (the latency of `labels` and `search` through the
runner meanwhile, against the same reads just before, with no client stalled: issue 22); the
runner killed with SIGKILL (whether the CLI then works alone).
"""

from __future__ import annotations

import argparse
import json
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg, table  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]


def proc_status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


def settled_threads(pid: int) -> int:
    last, same = -1, 0
    while same < 5:
        now = proc_status(pid, "Threads")
        same, last = (same + 1 if now == last else 0), now
        time.sleep(0.1)
    return last


def labels_cli() -> subprocess.CompletedProcess[str]:
    return subprocess.run([*MDX, "labels", "--json"], capture_output=True, text=True, check=False)


# Control characters JSON escapes as 6 bytes each: a broad search's answer is ~0.5 MB.
BULKY_LINE = 'export const s%d = "quoted path ' + "\x01" * 40 + '";\n'
BROAD = {"catalog": "bench", "label": "main", "text": "quoted path", "limit": 1000, "per_file": 100}


def make_repo(root: Path) -> Path:
    repo = root / "repo"
    (repo / "bulky").mkdir(parents=True)
    (repo / "a.ts").write_text("export const a = 1;\n")
    for f in range(4):
        (repo / "bulky" / f"f{f}.ts").write_text("".join(BULKY_LINE % i for i in range(400)))
    git = ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    return repo


def burst(n: int) -> list[object]:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(n) as pool:
        runs = list(pool.map(lambda _: labels_cli(), range(n)))
    failed = sum(r.returncode != 0 for r in runs)
    took = time.perf_counter() - t0
    return [f"{n} parallel `monodex labels`", f"{n - failed} ok, {failed} failed", f"{took:.1f} s wall"]


def idle(pid: int, sock_path: Path, m: int) -> list[object]:
    from monodex.disk import paths
    from monodex.runner import rpc

    before = settled_threads(pid)
    conns = []
    try:
        for _ in range(m):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(str(sock_path))
            conns.append(s)
        after = settled_threads(pid)
        t0 = time.perf_counter()
        answered = rpc.call(paths.resolve(), "labels", {}) is not None
        took = time.perf_counter() - t0
    finally:
        for s in conns:
            s.close()
    ok = f"a request answered in {took * 1e3:.0f} ms" if answered else "a request NOT answered"
    return [f"{m} idle connections", f"runner threads {before} -> {after}", ok]


def oversize(pid: int, sock_path: Path, mb: int) -> list[object]:
    rss = proc_status(pid, "VmRSS")
    body = json.dumps({"v": 1, "op": "labels", "args": {"junk": "x" * (mb * 1_000_000)}}).encode() + b"\n"
    t0 = time.perf_counter()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(str(sock_path))
        try:
            s.sendall(body)
        except OSError:
            pass  # the runner stopped reading; its answer is still there to read
        answer = json.loads(s.makefile("rb").readline() or b"{}")
    took = time.perf_counter() - t0
    err = answer.get("error") or {}
    said = f"exit {err.get('exit')}: {err.get('problem')}" if err else f"ok={answer.get('ok')}"
    after = proc_status(pid, "VmRSS")
    return [
        f"one {mb} MB request",
        f"{said} ({took:.2f} s)",
        f"runner RSS {rss // 1024} -> {after // 1024} MB",
    ]


def _stuck_client(sock_path: Path) -> socket.socket:
    from monodex.runner import rpc

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    s.connect(str(sock_path))
    request = {"v": rpc.VERSION, "op": "search", "args": {**BROAD, "explain": True}}
    s.sendall(json.dumps(request).encode() + b"\n")
    return s  # never read


def _read_latency(reads: int) -> str:
    """p50 and max milliseconds of `labels` and a small `search` through the runner."""
    from monodex.disk import paths
    from monodex.runner import rpc

    p = paths.resolve()
    out = []
    for op, args in (("labels", {}), ("search", {**BROAD, "limit": 3, "per_file": 1})):
        took = []
        for _ in range(reads):
            t0 = time.perf_counter()
            rpc.call(p, op, args)
            took.append((time.perf_counter() - t0) * 1e3)
        out.append(f"{op} p50 {statistics.median(took):.0f} ms, max {max(took):.0f} ms")
    return "; ".join(out)


def stuck(sock_path: Path, k: int, reads: int) -> list[object]:
    baseline = _read_latency(reads)
    clients = [_stuck_client(sock_path) for _ in range(k)]
    try:
        time.sleep(2.0)  # their answers are made and wait in the sockets' buffers
        stalled = _read_latency(reads)
    finally:
        for c in clients:
            c.close()
    return [
        f"{k} clients never reading a ~0.5 MB answer",
        f"while they stall: {stalled}",
        f"baseline: {baseline}",
    ]


def killed(runner: subprocess.Popen[bytes]) -> list[object]:
    runner.send_signal(signal.SIGKILL)
    runner.wait(timeout=30)
    t0 = time.perf_counter()
    r = labels_cli()
    took = time.perf_counter() - t0
    what = "works alone" if r.returncode == 0 else f"FAILS: {r.stderr.strip()[:80]}"
    return ["runner SIGKILLed (socket and pid file left)", f"`monodex labels` {what}", f"{took:.1f} s"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=50, help="parallel `monodex labels` processes")
    ap.add_argument("--idle", type=int, default=1000, help="connections that never send")
    ap.add_argument("--oversize-mb", type=int, default=10, help="size of the oversize request")
    ap.add_argument("--stuck", type=int, default=16, help="clients that never read their answer")
    ap.add_argument("--reads", type=int, default=20, help="reads timed with and without them")
    a = ap.parse_args()
    with isolated_xdg(), tempfile.TemporaryDirectory() as tmp:
        from monodex.scheduler.server import wait_listening

        from monodex.disk import paths
        from monodex.runner import runnerpid

        repo = make_repo(Path(tmp))
        subprocess.run([*MDX, "catalog", "add", "bench", str(repo)], check=True, capture_output=True)
        crawl = [*MDX, "crawl", "--catalog", "bench", "--label", "main", "--commit", "HEAD", "--json"]
        subprocess.run(crawl, check=True, capture_output=True)
        p = paths.resolve()
        runner = subprocess.Popen([*MDX, "runner"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not wait_listening(p.socket_path, timeout=120):
                raise SystemExit("the runner never listened")
            while runnerpid.running_pid(p) != runner.pid:
                time.sleep(0.05)
            rows = [
                burst(a.clients),
                idle(runner.pid, p.socket_path, a.idle),
                oversize(runner.pid, p.socket_path, a.oversize_mb),
                stuck(p.socket_path, a.stuck, a.reads),
            ]
            rows.append(killed(runner))
        finally:
            if runner.poll() is None:
                runner.send_signal(signal.SIGTERM)
                runner.wait(timeout=60)
    print(table(rows, ["probe", "result", "detail"]))


if __name__ == "__main__":
    main()
