"""Uncommitted edits (issue 21, item 3): scenarios of bench/follow.py.

edit           an edit on disk -> a search from the worktree returns it (the overlay), p50 and
               max over rounds, without a runner (one process with a warm model, as the MCP server
               runs) and through the runner's socket. Baseline in the same run: what a user had to
               do before, `crawl --working-dir` into a label, then search that label.
               Target: p50 < 0.5 s on tiktok/sparo.
overlay-check  a search from a worktree where nothing changed since the last one: the overlay's
               own cost (freshness.overlay.seconds: git status, the stat-cache scan, one point read)
               and the whole search against the same search with `committed` (no overlay), with a
               clean worktree and with a few dirty files. Target: < 50 ms on microsoft/rushstack.

Both print one table. Take figures alone on the machine (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _common import checkout, isolated_xdg, persistent_xdg, table

MDX = [sys.executable, "-m", "monodex"]
Run = Callable[[Any], dict[str, Any]]


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def _mdx(*args: str) -> str:
    done = subprocess.run([*MDX, *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"monodex {' '.join(args)} failed: {done.stderr[-2000:]}")
    return done.stdout


def _prepare(repo: str, *, catalog: str, lexical: bool) -> Path:
    """A checkout on branch main, registered and crawled into label main (phase one only with
    `lexical`: searches then run lexical), its git index refreshed as a user's git would."""
    work = checkout(repo, files=True)
    _git(work, "checkout", "-q", "-f", "-B", "main")
    _git(work, "status", "--porcelain")  # refresh git's stat cache once, as any git command does
    _mdx("catalog", "add", catalog, str(work), "--force")
    crawl = ["crawl", "--catalog", catalog, "--label", "main", "--commit", "HEAD", "--json"]
    _mdx(*crawl, *(["--no-wait-dense"] if lexical else []))
    return work


@contextmanager
def _runner() -> Iterator[None]:
    from monodex.scheduler.server import wait_listening

    from monodex.disk import paths

    proc = subprocess.Popen([*MDX, "runner"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(paths.resolve().socket_path, timeout=120):
            raise SystemExit("the runner never listened on its socket")
        yield
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)


def _executor() -> Run:
    """Requests run as the MCP server runs them: through the runner when one is up, else in this
    process with the model kept warm between calls (the shard opened per call)."""
    from monodex.disk import paths
    from monodex.front import route
    from monodex.observe import logs

    logs.configure()
    local = route.Local(keep_model=True)
    return lambda request: route.execute(paths.resolve(), request, quiet=True, local=local)


def _target(work: Path) -> Path:
    """A TypeScript source file to edit (not a test, not generated)."""
    return next(
        p
        for p in sorted(work.rglob("*.ts"))
        if "src" in p.parts and "node_modules" not in p.parts and not p.name.endswith((".d.ts", ".test.ts"))
    )


def _edit_rounds(
    run: Run, work: Path, target: Path, *, catalog: str, rounds: int, mode: str, baseline: bool
) -> list[tuple[float, float | None]]:
    """(seconds from an edit on disk to a search returning it, the overlay's own seconds in that
    search) per round. With `baseline`, the search asks a working-dir label that a `crawl
    --working-dir` refreshes first (no overlay: None)."""
    from monodex import requests as rq

    original = target.read_text()
    delays = []
    try:
        for r in range(rounds):
            token = f"followEditProbe{r}x{int(time.time() * 1000) % 10**8}"
            target.write_text(original + f"\n/** A follow probe. */\nexport const {token} = {r};\n")
            t0 = time.perf_counter()
            while True:
                if baseline:
                    run(rq.CrawlRequest(catalog, "worktree", working_dir=True, wait_dense=False))
                    ask = rq.SearchRequest(catalog, "worktree", token, mode=mode)
                else:
                    ask = rq.SearchRequest(catalog, "main", token, mode=mode, worktree=str(work))
                answer = run(ask)
                if any(token in str(hit["text"]) for hit in answer["results"]):
                    break
                if time.perf_counter() - t0 > 60:
                    raise SystemExit(f"a search never returned the edit {token} in {target}")
            own = answer["freshness"].get("overlay", {}).get("seconds")
            delays.append((time.perf_counter() - t0, own))
    finally:
        target.write_text(original)
    return delays


def _floor(run: Run, work: Path, *, catalog: str, rounds: int, mode: str) -> list[tuple[float, float | None]]:
    """Seconds of the same search as committed (no overlay): what any search costs on this path."""
    from monodex import requests as rq

    ask = rq.SearchRequest(catalog, "main", "followEditProbe", mode=mode, worktree=str(work), committed=True)
    out = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run(ask)
        out.append((time.perf_counter() - t0, None))
    return out


def _row(name: str, rounds: list[tuple[float, float | None]]) -> list[object]:
    delays = [d for d, _ in rounds]
    own = [o for _, o in rounds if o is not None]
    mine = f"{statistics.median(own):.3f}" if own else "-"
    return [name, len(delays), f"{statistics.median(delays):.3f}", f"{max(delays):.3f}", mine]


def edit(argv: list[str]) -> None:
    """edit -> searchable from the worktree (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="bench/follow.py edit")
    parser.add_argument("--repo", default="tiktok+sparo", help="owner+repo under the mirrors")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--lexical", action="store_true", help="phase one only, lexical searches (smoke)")
    args = parser.parse_args(argv)
    catalog, mode = "follow", "lexical" if args.lexical else "hybrid"
    rows = []
    with isolated_xdg():
        work = _prepare(args.repo, catalog=catalog, lexical=args.lexical)
        target = _target(work)
        run = _executor()
        # one search and one working-dir crawl first: the model, the shard and the label warm
        _edit_rounds(run, work, target, catalog=catalog, rounds=1, mode=mode, baseline=True)
        _edit_rounds(run, work, target, catalog=catalog, rounds=1, mode=mode, baseline=False)
        kw: dict[str, Any] = {"catalog": catalog, "rounds": args.rounds, "mode": mode}
        rows.append(
            _row("no runner (warm model): overlay", _edit_rounds(run, work, target, baseline=False, **kw))
        )
        rows.append(_row("no runner: floor, the same search --committed", _floor(run, work, **kw)))
        rows.append(
            _row(
                "no runner: baseline crawl --working-dir + search",
                _edit_rounds(run, work, target, baseline=True, **kw),
            )
        )
        with _runner():
            _edit_rounds(run, work, target, catalog=catalog, rounds=1, mode=mode, baseline=False)
            rows.append(_row("runner: overlay", _edit_rounds(run, work, target, baseline=False, **kw)))
            rows.append(_row("runner: floor, the same search --committed", _floor(run, work, **kw)))
            rows.append(
                _row(
                    "runner: baseline crawl --working-dir + search",
                    _edit_rounds(run, work, target, baseline=True, **kw),
                )
            )
    print(f"edit -> searchable from the worktree, {args.repo} ({target.relative_to(work)}), {mode} search")
    print(table(rows, ["path", "rounds", "p50 s", "max s", "overlay's own p50 s"]))


def _checks(
    run: Run, work: Path, *, catalog: str, rounds: int
) -> tuple[list[float], list[float], list[float]]:
    """(overlay seconds, search seconds with the overlay, search seconds committed) per round."""
    from monodex import requests as rq

    text = "read the configuration file and parse it"
    ask = rq.SearchRequest(catalog, "main", text, mode="lexical", worktree=str(work))
    committed = rq.SearchRequest(catalog, "main", text, mode="lexical", worktree=str(work), committed=True)
    run(ask)  # brings the overlay up to date: the rounds below change nothing
    own, whole, base = [], [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        overlay = run(ask)["freshness"]["overlay"]
        whole.append(time.perf_counter() - t0)
        if overlay["updated"] or overlay["files_read"]:
            raise SystemExit(f"nothing changed, yet the overlay did work: {overlay}")
        own.append(float(overlay["seconds"]))
        t0 = time.perf_counter()
        run(committed)
        base.append(time.perf_counter() - t0)
    return own, whole, base


def overlay_check(argv: list[str]) -> None:
    """The overlay check with nothing changed (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="bench/follow.py overlay-check")
    parser.add_argument("--repo", default="microsoft+rushstack", help="owner+repo under the mirrors")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--dirty", type=int, default=5, help="files edited for the dirty rows")
    args = parser.parse_args(argv)
    catalog = "follow"
    rows = []
    # the crawl (phase one) is kept between runs: the check needs no dense vector
    with persistent_xdg(f"follow-{args.repo}"):
        work = _prepare(args.repo, catalog=catalog, lexical=True)
        edited = [p for p in sorted(work.rglob("*.ts")) if "node_modules" not in p.parts][: args.dirty]
        originals = {p: p.read_text() for p in edited}
        run = _executor()
        try:
            for where, context in (("no runner", _no_runner), ("runner", _runner)):
                with context():
                    for state in ("clean", f"{args.dirty} dirty"):
                        _edit(edited, originals, dirty=state != "clean")
                        own, whole, base = _checks(run, work, catalog=catalog, rounds=args.rounds)
                        rows.append(
                            [
                                f"{where}, {state} worktree",
                                args.rounds,
                                f"{statistics.median(own) * 1000:.1f}",
                                f"{max(own) * 1000:.1f}",
                                f"{statistics.median(whole) * 1000:.1f}",
                                f"{statistics.median(base) * 1000:.1f}",
                            ]
                        )
        finally:
            for p, text in originals.items():
                p.write_text(text)
    print(f"overlay check with nothing changed, {args.repo}, lexical search")
    header = [
        "path",
        "rounds",
        "overlay p50 ms",
        "overlay max ms",
        "search p50 ms",
        "baseline committed p50 ms",
    ]
    print(table(rows, header))


def _edit(files: list[Path], originals: dict[Path, str], *, dirty: bool) -> None:
    for p in files:
        p.write_text(originals[p] + ("\n// follow bench edit\n" if dirty else ""))
        # edited a while ago: a file changed within statcache.RACY_NS of its hashing is hashed
        # again by every search (git does the same), which is not the case measured here
        os.utime(p, (time.time() - 60, time.time() - 60))


@contextmanager
def _no_runner() -> Iterator[None]:
    yield


SCENARIOS = {"edit": edit, "overlay-check": overlay_check}
