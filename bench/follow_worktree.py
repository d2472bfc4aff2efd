"""A new worktree on a new branch from `main` -> the first answer searched from inside it (issue 21).

The branch has no label yet: the first `monodex search` run in the worktree indexes it on demand
(phase one, every unchanged file reused) and answers. Baseline in the same run: the way to get a
new branch searchable before, by hand, `monodex crawl --branch B --commit B --no-wait-dense` then
`monodex search --branch B`. Both with the runner down, on the same index (main crawled once,
phase one), rounds alternating.

Usage: .venv/bin/python bench/follow_worktree.py [OWNER+REPO] [ROUNDS]
  (default microsoft+rushstack, 3 rounds; mirrors under $MONODEX_BENCH_MIRRORS)
Target (issue 21): first answer < 5 s on rushstack with 0 embeddings (0 files stored) for
unchanged files.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, table  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]
QUESTION = "read a JSON file and validate it against a schema"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def mdx(*args: str, cwd: Path | None = None) -> tuple[dict[str, Any], float]:
    """One CLI run in a new process (as a user or agent runs it): its JSON and its wall time."""
    started = time.perf_counter()
    proc = subprocess.run([*MDX, *args], cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"monodex {' '.join(args)} failed:\n{proc.stderr}")
    return json.loads(proc.stdout), seconds


def new_worktree(work: Path, catalog: str, n: int) -> dict[str, Any]:
    wt = work.parent / f"{work.name}-wt{n}"
    shutil.rmtree(wt, ignore_errors=True)
    started = time.perf_counter()
    git(work, "worktree", "add", "-q", str(wt), "-b", f"bench/wt-{n}", "main")
    git_seconds = time.perf_counter() - started
    answer, seconds = mdx("search", "--text", QUESTION, "--json", cwd=wt)
    made = answer.get("on_demand") or {}
    git(work, "worktree", "remove", "--force", str(wt))
    mdx("labels", "rm", "--catalog", catalog, "--branch", f"bench/wt-{n}", "--json")
    return {
        "seconds": seconds,
        "git_seconds": git_seconds,
        "index_seconds": made.get("seconds"),  # phase one of the new label, inside the search
        "files_stored": made.get("files_stored"),
        "files_reused": made.get("files_reused"),
        "answered_for": answer["freshness"].get("worktree"),
        "hits": len(answer["results"]),
    }


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    name = args[0] if args else "microsoft+rushstack"
    rounds = int(args[1]) if len(args) > 1 else 3
    catalog = name.split("+", 1)[1].lower()
    work = checkout(name, files=True)
    git(work, "checkout", "-q", "-B", "main")
    with isolated_xdg():
        subprocess.run(
            [*MDX, "catalog", "add", catalog, str(work), "--force"], check=True, capture_output=True
        )
        first, seconds = mdx(
            "crawl", "--catalog", catalog, "--label", "main", "--commit", "main", "--no-wait-dense", "--json"
        )
        print(f"main crawled (phase one): {first['files_total']} files in {seconds:.1f} s", flush=True)
        new, old = [], []
        for n in range(rounds):
            new.append(new_worktree(work, catalog, n))
            old.append(by_hand(work, catalog, n))
    rows = [
        ["worktree + search (on demand)", *_figures(new)],
        ["baseline: crawl --branch + search", *_figures(old)],
    ]
    print(table(rows, ["path", "p50 first answer (s)", "max (s)", "files stored", "files reused"]))
    print(json.dumps({"repo": name, "rounds": rounds, "on_demand": new, "baseline": old}, indent=1))


def by_hand(work: Path, catalog: str, n: int) -> dict[str, Any]:
    """Before: a new branch was searchable once crawled by hand into its own label."""
    branch = f"bench/base-{n}"
    git(work, "branch", "-f", branch, "main")
    crawled, crawl_s = mdx(
        "crawl", "--catalog", catalog, "--branch", branch, "--commit", branch, "--no-wait-dense", "--json"
    )
    answer, search_s = mdx("search", "--catalog", catalog, "--branch", branch, "--text", QUESTION, "--json")
    mdx("labels", "rm", "--catalog", catalog, "--branch", branch, "--json")
    return {
        "seconds": crawl_s + search_s,
        "files_stored": crawled["files_embedded"],
        "files_reused": crawled["files_reused"],
        "hits": len(answer["results"]),
    }


def _figures(runs: list[dict[str, Any]]) -> list[object]:
    secs = [r["seconds"] for r in runs]
    return [
        f"{statistics.median(secs):.2f}",
        f"{max(secs):.2f}",
        "/".join(str(r["files_stored"]) for r in runs),
        "/".join(str(r["files_reused"]) for r in runs),
    ]


SCENARIOS = {"new-worktree": main}


if __name__ == "__main__":
    main()
