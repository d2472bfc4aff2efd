"""With the runner up, the time from `git commit` (one changed .ts file) to `monodex search`
returning the new content, on tiktok/sparo. Baseline in the same run: the same refresh done by
hand (`monodex crawl` in a new process) right after a commit.

Usage: .venv/bin/python bench/freshness.py [ROUNDS]
Target (issue 4): < 3 s.
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


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def found(token: str) -> bool:
    """`monodex search` returns the new content: the same request the CLI sends to the runner's
    socket (polled in-process, so a poll does not add a Python start-up)."""
    from monodex.disk import paths
    from monodex.errors import MonodexError
    from monodex.runner import rpc

    query = {"catalog": "sparo", "label": "main", "text": f"A freshness probe constant. {token}", "limit": 10}
    try:
        answer = rpc.call(paths.resolve(), "search", query)
    except MonodexError:
        return False
    return answer is not None and any(token in str(r["text"]) for r in answer["results"])


QUERY = ""


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    work = checkout("tiktok+sparo", files=True)
    git(work, "checkout", "-q", "-B", "main")
    global QUERY
    target = next(p for p in sorted(work.rglob("*.ts")) if "src" in p.parts and "node_modules" not in p.parts)
    QUERY = str(target.relative_to(work))
    rows = []
    with isolated_xdg():
        subprocess.run(
            [*MDX, "catalog", "add", "sparo", str(work), "--force"], check=True, capture_output=True
        )
        first = subprocess.run(
            [*MDX, "crawl", "--catalog", "sparo", "--label", "main", "--commit", "HEAD", "--json"],
            capture_output=True,
            text=True,
        )
        if first.returncode:
            raise SystemExit(f"first crawl failed: {first.stderr}")
        subprocess.run([*MDX, "hooks", "install", "--repo", str(work)], check=True, capture_output=True)
        runner = subprocess.Popen(
            [*MDX, "runner", "--drain-seconds", "0.5"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        from monodex.scheduler.server import wait_listening

        from monodex.disk import paths

        if not wait_listening(paths.resolve().socket_path, timeout=60):
            raise SystemExit("the runner never listened on its socket")
        delays = []
        try:
            for r in range(rounds):
                token = f"freshnessProbe{r}x{int(time.time())}"
                with target.open("a") as fh:
                    fh.write(f"\n/** A freshness probe constant. */\nexport const {token} = {r};\n")
                git(work, "add", str(target))
                t0 = time.perf_counter()
                git(work, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", token)
                while not found(token):
                    time.sleep(0.1)
                    if time.perf_counter() - t0 > 30:
                        log = (paths_dir() / "logs").glob("*.log")
                        raise SystemExit(
                            diagnose(token)
                            + "search never saw the commit: "
                            + " | ".join(p.read_text()[-2500:] for p in log if p.name == "runner.log")
                        )
                delays.append(time.perf_counter() - t0)
        finally:
            runner.send_signal(signal.SIGTERM)
            runner.wait(timeout=60)
        subprocess.run([*MDX, "hooks", "uninstall", "--repo", str(work)], check=True, capture_output=True)
        manual = []
        for r in range(2):
            with target.open("a") as fh:
                fh.write(f"\nexport const manual{r} = {r};\n")
            git(work, "add", str(target))
            git(work, "-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", f"manual {r}")
            t0 = time.perf_counter()
            out = subprocess.run(
                [*MDX, "crawl", "--catalog", "sparo", "--label", "main", "--commit", "HEAD", "--json"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            manual.append((time.perf_counter() - t0, json.loads(out)["files_embedded"]))
    git(work, "checkout", "-q", "--detach")
    rows.append(
        [
            "runner up: commit -> search sees it",
            rounds,
            f"{statistics.median(delays):.2f}",
            f"{max(delays):.2f}",
        ]
    )
    rows.append(
        [
            "baseline: `monodex crawl` by hand (new process)",
            len(manual),
            f"{statistics.median(m[0] for m in manual):.2f}",
            f"{max(m[0] for m in manual):.2f}",
        ]
    )
    print(table(rows, ["path", "rounds", "median s", "max s"]))


def diagnose(token: str) -> str:
    from monodex.disk import paths
    from monodex.runner import rpc

    labels = rpc.call(paths.resolve(), "labels", {"catalog": "sparo"})
    return f"labels {labels}, probe path {QUERY}, token {token}\n"


def paths_dir() -> Path:
    from monodex.disk import paths

    return paths.resolve().state_dir


if __name__ == "__main__":
    main()
