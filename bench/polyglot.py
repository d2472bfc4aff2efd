"""The crawl of a polyglot monorepo (issue 23): phase one seconds, chunks, peak RSS, files by
strategy, with the built-in policy of now against the original's (TypeScript and Markdown only)
in the same run.

Usage: .venv/bin/python bench/polyglot.py [napi-rs|sparo|pnpm ...] [--dense]

Each crawl runs through the real CLI in a fresh isolated installation (`monodex crawl
--no-wait-dense`: phase one, the label searchable by its words); `--dense` also times phase two
(every chunk embedded with the configured model) for both policies. Peak RSS is the crawl
process's own (a fresh wrapper process per crawl, so one crawl's peak never hides another's).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, table  # noqa: E402

TARGETS = {
    "napi-rs": ("napi-rs+napi-rs", "8681902ce671fc2010a6e40fe4e2c9557ec44fa6"),
    "sparo": ("tiktok+sparo", "ca06251a491699b020e0529903ba8a726ff135e2"),
    "pnpm": ("pnpm+pnpm", "36e5ae6ac8d03743442f083680fa3015e4a774b3"),
}
MDX = [sys.executable, "-m", "monodex"]
# Runs one command and prints its peak RSS in KiB (the only waited child of this wrapper).
_WRAP = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
    "sys.stdout.write(r.stdout); sys.stderr.write(r.stderr[-2000:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(r.returncode)"
)


def measured(*args: str) -> tuple[dict[str, Any], float, float]:
    """(the command's --json answer, wall seconds, peak RSS MB)."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _WRAP, *MDX, *args], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"monodex {' '.join(args)} failed:\n{proc.stderr}")
    *body, rss = proc.stdout.strip().splitlines()
    return json.loads("\n".join(body)), seconds, int(rss) / 1024


def crawl(name: str, work: Path, commit: str, *, policy: dict[str, Any] | None, dense: bool) -> list[object]:
    with isolated_xdg():
        from monodex.disk import paths

        if policy is not None:
            p = paths.resolve()
            p.config_dir.mkdir(parents=True, exist_ok=True)
            p.user_crawl_file.write_text(json.dumps(policy))
        subprocess.run([*MDX, "catalog", "add", name, str(work)], check=True, capture_output=True)
        target = ("--catalog", name, "--label", "main", "--commit", commit, "--json")
        plan, _, _ = measured("crawl", *target, "--dry-run")
        one, seconds, rss = measured("crawl", *target, "--no-wait-dense")
        chunks = int(one["chunks_pending"]) + int(one["chunks_embedded"])
        row: list[object] = [
            f"{one['files_total']:,}",
            f"{chunks:,}",
            f"{seconds:.1f}",
            f"{rss:.0f}",
            ", ".join(f"{k} {v}" for k, v in sorted(plan["by_strategy"].items(), key=lambda kv: -kv[1])),
        ]
        if dense:
            two, seconds2, rss2 = measured("crawl", *target, "--wait-dense")
            row += [f"{seconds2:.1f}", f"{rss2:.0f}", f"{chunks / max(seconds2, 1e-9):.0f}"]
        return row


def main() -> None:
    from monodex.indexer.policy import crawlpolicy

    dense = "--dense" in sys.argv
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or ["napi-rs"]
    header = ["repo", "policy", "files", "chunks", "phase one s", "peak RSS MB", "files by strategy"]
    if dense:
        header += ["phase two s", "phase two RSS MB", "chunks/s"]
    rows = []
    for name in names:
        mirror, commit = TARGETS[name]
        work = checkout(mirror, rev=commit)
        for label, policy in (("original (TS, MD)", crawlpolicy.BUILTIN_V1), ("built-in (issue 23)", None)):
            rows.append([name, label, *crawl(name, work, commit, policy=policy, dense=dense)])
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print(table(rows, header))


if __name__ == "__main__":
    main()
