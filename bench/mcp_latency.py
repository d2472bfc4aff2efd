"""MCP `search` round trips through a running `monodex mcp` server, against the CLI, in one run.

Usage: .venv/bin/python bench/mcp_latency.py [TARGET] [QUERIES]   (default: rushstack 100)

The target is crawled as bench/quality.py does (kept under bench/.work/xdg-<target>), the runner
is started, then the same queries (the evaluation set's, cycled) go through: the MCP server
(the SDK's client over stdio; with the default 4,000-token budget and without a budget), the
runner's socket alone, and `monodex search` as a new process.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, persistent_xdg, table  # noqa: E402
from quality import MDX, TARGETS, queries  # noqa: E402


def stats(samples: list[float]) -> list[str]:
    ordered = sorted(samples)
    p95 = ordered[round(0.95 * (len(ordered) - 1))]
    return [str(len(samples)), f"{statistics.median(samples) * 1e3:.1f}", f"{p95 * 1e3:.1f}"]


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "rushstack"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    mirror, commit, part = TARGETS[name]
    work = checkout(mirror, rev=commit)
    texts = [q["query"] for q in queries(name)]
    texts = (texts * (n // max(1, len(texts)) + 1))[:n]
    with persistent_xdg(name):
        import anyio
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters

        from monodex.disk import paths
        from monodex.runner import rpc

        p = paths.resolve()
        if part:
            p.config_dir.mkdir(parents=True, exist_ok=True)
            p.user_crawl_file.write_text(json.dumps(part, indent=2))
        subprocess.run([*MDX, "catalog", "add", name, str(work), "--force"], check=True, capture_output=True)
        subprocess.run(
            [*MDX, "crawl", "--catalog", name, "--label", "main", "--commit", commit, "--json"],
            check=True,
            capture_output=True,
        )
        runner = subprocess.Popen([*MDX, "runner", "--drain-seconds", "3600"], stderr=subprocess.DEVNULL)
        try:
            from monodex.scheduler.server import wait_listening

            assert wait_listening(p.socket_path, timeout=120), "the runner did not start"
            rows: list[list[Any]] = []

            async def mcp_round_trips() -> dict[str, list[float]]:
                import os

                server = StdioServerParameters(
                    command=sys.executable, args=["-m", "monodex", "mcp"], env=dict(os.environ)
                )
                out: dict[str, list[float]] = {"budget": [], "none": []}
                async with Client(server, read_timeout_seconds=120) as client:
                    await client.call_tool("search", {"query": "warm up", "catalog": name, "label": "main"})
                    for t in texts:
                        for key, budget in (("budget", 4000), ("none", None)):
                            t0 = time.perf_counter()
                            res = await client.call_tool(
                                "search", {"query": t, "catalog": name, "label": "main", "max_tokens": budget}
                            )
                            out[key].append(time.perf_counter() - t0)
                            assert not res.is_error, res.content
                return out

            mcp = anyio.run(mcp_round_trips)
            rows.append(["MCP search (max_tokens 4000)", *stats(mcp["budget"])])
            rows.append(["MCP search (no budget)", *stats(mcp["none"])])
            sock = []
            for t in texts:
                t0 = time.perf_counter()
                rpc.call(p, "search", {"catalog": name, "label": "main", "text": t, "limit": 10})
                sock.append(time.perf_counter() - t0)
            rows.append(["runner socket alone", *stats(sock)])
            cli = []
            for t in texts[: min(len(texts), 30)]:
                t0 = time.perf_counter()
                subprocess.run(
                    [*MDX, "search", "--catalog", name, "--label", "main", "--text", t, "--json"],
                    check=True,
                    capture_output=True,
                )
                cli.append(time.perf_counter() - t0)
            rows.append(["`monodex search` process (runner up)", *stats(cli)])
        finally:
            runner.terminate()
            runner.wait(timeout=120)
        print(f"{name}: search round trips, warm runner")
        print(table(rows, ["path", "queries", "p50 ms", "p95 ms"]))


if __name__ == "__main__":
    main()
