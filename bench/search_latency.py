"""Search latency with and without the runner, in one run, on tiktok/sparo.

Usage: .venv/bin/python bench/search_latency.py [ROUNDS]
Paths measured: `monodex search` as a new process with no runner (opens the shard, loads the
model); the same command while the runner is up (answered over its socket); and the socket
round trip alone (what a long-lived client such as an MCP server pays).
"""

from __future__ import annotations

import json
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, table  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]
QUERIES = [
    "sparse checkout of a folder",
    "run a git command",
    "parse command line arguments",
    "print a warning to the terminal",
    "read the sparo configuration file",
    "list the projects of the rush monorepo",
]


def cli_search(text: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [*MDX, "search", "--catalog", "sparo", "--label", "main", "--text", text, "--json"],
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - t0


def stats(samples: list[float]) -> list[str]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return [str(len(samples)), f"{statistics.median(samples) * 1e3:.0f}", f"{p95 * 1e3:.0f}"]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    work = checkout("tiktok+sparo", rev="HEAD~3")
    with isolated_xdg():
        from monodex.scheduler.server import wait_listening

        from monodex.disk import paths
        from monodex.runner import rpc

        subprocess.run(
            [*MDX, "catalog", "add", "sparo", str(work), "--force"], check=True, capture_output=True
        )
        subprocess.run(
            [*MDX, "crawl", "--catalog", "sparo", "--label", "main", "--commit", "HEAD", "--json"],
            check=True,
            capture_output=True,
        )
        alone = [cli_search(q) for _ in range(rounds) for q in QUERIES]
        runner = subprocess.Popen([*MDX, "runner"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not wait_listening(paths.resolve().socket_path, timeout=60):
                raise SystemExit("the runner never listened")
            with_runner = [cli_search(q) for _ in range(rounds) for q in QUERIES]
            socket_only = []
            for _ in range(rounds * 5):
                for q in QUERIES:
                    t0 = time.perf_counter()
                    rpc.call(
                        paths.resolve(),
                        "search",
                        {"catalog": "sparo", "label": "main", "text": q, "limit": 10},
                    )
                    socket_only.append(time.perf_counter() - t0)
            labels = rpc.call(paths.resolve(), "labels", {})
        finally:
            runner.send_signal(signal.SIGTERM)
            runner.wait(timeout=60)
    chunks = sum(r["chunks"] for r in (labels or {}).get("labels", []))
    print(f"sparo HEAD~3, {chunks} chunks in the label")
    rows = [
        ["`monodex search`, no runner (baseline)", *stats(alone)],
        ["`monodex search`, runner up (socket)", *stats(with_runner)],
        ["socket round trip, runner up", *stats(socket_only)],
    ]
    print(table(rows, ["path", "queries", "p50 ms", "p95 ms"]))
    print(json.dumps({"speedup_p50": round(statistics.median(alone) / statistics.median(with_runner), 2)}))


if __name__ == "__main__":
    main()
