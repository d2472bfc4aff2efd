"""Search latency against an older build, each build on an index of its own (issue 34: in-process
p50 within 1.2x of c109e81's). `bench/answers.py --baseline` compares builds over one index, which
an older build may no longer read; here each build crawls the repository itself (once, into
bench/.work/latency-<rev>-<name>) and asks the same questions in its own venv.

Usage: .venv/bin/python bench/search_vs_baseline.py [--baseline REV] [--rounds N] [--only NAME ...]

What is timed, per question: opening the catalog's history (as `monodex search` does), the query
embedding and `search()` with it, after three warm-up searches. The rounds alternate the builds;
the table gives each round's p50 and the ratio now / baseline, and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from _common import WORK, checkout  # noqa: E402

SETS = ("fmtlib+fmt", "honojs+hono", "google+gson", "tokio-rs+axum")
# Every question set written for a repository is asked: a p50 of 24 questions moved by up to 35 %
# between one build's rounds; the later sets and the short questions double that count or more.
SET_FOLDERS = ("hand", "hand2", "hand3", "hand4", "short")


def questions_of(name: str) -> Path:
    """One file holding every question written for `name` (its first set's commit is crawled)."""
    queries = []
    for folder in SET_FOLDERS:
        if (f := BENCH / "eval" / folder / f"{name}.json").exists():
            queries += [{"query": q["query"]} for q in json.loads(f.read_text())["queries"]]
    out = WORK / f"latency-questions-{name}.json"
    out.write_text(json.dumps({"queries": queries}))
    return out


def inner(xdg: str, repo: str, commit: str, qfile: str, catalog: str) -> None:
    """In the build's own venv: crawl once, then time each question; prints one JSON line."""
    for key, sub in (
        ("XDG_CONFIG_HOME", "c"),
        ("XDG_DATA_HOME", "d"),
        ("XDG_STATE_HOME", "s"),
        ("XDG_RUNTIME_DIR", "r"),
        ("XDG_CACHE_HOME", "k"),
    ):
        os.environ[key] = str(Path(xdg) / sub)
        Path(os.environ[key]).mkdir(parents=True, exist_ok=True)
    mdx = [sys.executable, "-m", "monodex"]
    import time

    if not (Path(xdg) / "crawled").exists():
        subprocess.run([*mdx, "catalog", "add", catalog, repo], check=True, capture_output=True)
        done = subprocess.run(
            [*mdx, "crawl", "--catalog", catalog, "--label", "main", "--commit", commit, "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
        # the compaction a crawl starts runs on in the background: timed beside it, a round read
        # 1.25x where the next read 0.75x (docs/benchmarks.md)
        try:
            pid = (json.loads(done.stdout.strip().splitlines()[-1]).get("compaction") or {}).get("pid")
        except (ValueError, IndexError, AttributeError):
            pid = None
        while pid and Path(f"/proc/{pid}").exists():
            time.sleep(0.5)
        (Path(xdg) / "crawled").write_text(commit)

    try:  # the layout since the package split
        from monodex.indexer.history.cochanges import History

        from monodex.disk import paths
        from monodex.settings import config
    except ImportError:  # c109e81's
        from monodex.indexer.store.cochanges import History  # type: ignore[import-not-found,no-redef]

        from monodex import config, paths  # type: ignore[attr-defined,no-redef]
    from monodex.indexer.read import search as searching
    from monodex.indexer.session import Session

    questions = [q["query"] for q in json.loads(Path(qfile).read_text())["queries"]]
    p = paths.resolve()
    times = []
    with Session(config.load(p), p) as s:
        for warm in ("warm up the model", "parse", "where is the config read"):
            searching.search(s.store, s.engine, catalog=catalog, label="main", text=warm, limit=10)
        for q in questions:
            started = time.perf_counter()
            past = History.open(p.state_dir, catalog)
            try:
                searching.search(
                    s.store, s.engine, catalog=catalog, label="main", text=q, limit=10, history=past
                )
            finally:
                if past is not None:
                    past.close()
            times.append((time.perf_counter() - started) * 1e3)
    print(json.dumps({"n": len(times), "p50_ms": statistics.median(times)}))


def venv_of(rev: str) -> Path:
    """The baseline's python: its checkout and venv under bench/.work, made once."""
    root = WORK / f"baseline-{rev[:12]}"
    if not root.exists():
        subprocess.run(
            ["git", "-C", str(BENCH.parent), "worktree", "add", "--detach", str(root), rev], check=True
        )
        subprocess.run([sys.executable, "-m", "venv", str(root / ".venv")], check=True)
        subprocess.run([str(root / ".venv/bin/pip"), "install", "-q", "-e", str(root)], check=True)
    return root / ".venv/bin/python"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="c109e81")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", nargs="*", default=list(SETS))
    ap.add_argument("--inner", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.inner:
        inner(*args.inner)
        return
    builds = {"baseline": venv_of(args.baseline), "now": Path(sys.executable)}
    print("| set | round | questions | baseline p50 ms | now p50 ms | now / baseline |")
    print("|---|---|---|---|---|---|")
    ratios = []
    for name in args.only:
        commit = json.loads((BENCH / "eval" / "hand" / f"{name}.json").read_text())["commit"]
        qfile = questions_of(name)
        repo = checkout(name, rev=commit)
        catalog = name.split("+", 1)[1].lower().replace("_", "-").replace(".", "-")
        for r in range(1, args.rounds + 1):
            p50 = {}
            for who, python in builds.items():
                tag = args.baseline[:12] if who == "baseline" else "now"
                xdg = WORK / f"latency-{tag}-{catalog}"
                out = subprocess.run(
                    [str(python), __file__, "--inner", str(xdg), str(repo), commit, str(qfile), catalog],
                    check=True,
                    capture_output=True,
                    text=True,
                    cwd="/",
                ).stdout
                timed = json.loads(out.strip().splitlines()[-1])
                p50[who], asked = timed["p50_ms"], timed["n"]
            ratios.append(p50["now"] / p50["baseline"])
            print(
                f"| {name} | {r} | {asked} | {p50['baseline']:.1f} | {p50['now']:.1f} | {ratios[-1]:.2f}x |",
                flush=True,
            )
    print(f"\nmedian now / baseline: {statistics.median(ratios):.2f}x over {len(ratios)} runs")


if __name__ == "__main__":
    main()
