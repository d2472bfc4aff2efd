"""Many branches (issue 25): what a new label costs, and what search and the index cost as labels
pile up, with the build before issue 25 as the baseline in the same run.

Usage: .venv/bin/python bench/labels.py [--baseline PYTHON] [--labels 100] [--rounds 7] [--far 500]
           [--create-rounds 7] [--creation-only]

Each build (this checkout's interpreter, and --baseline: the interpreter of a checkout of the
build before, e.g. a `git worktree` at febaea1 with its own .venv) gets a fresh installation and
the same steps, through its own `python -m monodex` (phase one only: `--no-wait-dense`, no
runner, so no fill job competes):
1. `main` at rushstack's evaluation commit (bench/quality.py's, with its policy), untimed;
2. a label 1, 25 and --far commits (first parent) away from `main`: the crawl's wall time, as a
   command alone (1 away: the median of --create-rounds, each on a fresh copy of the one-label
   installation) and as a command handed to a running runner (on a copy of the one-label
   installation; its fill job is filling main's vectors meanwhile and yields, as after any
   phase-one crawl: how a hook's refresh or an agent's crawl meets it);
3. at 10 and --labels labels (`main`, then labels at main~1, main~2, ...): the search p50 of
   `main` as a new process (`monodex search`, lexical: no dense vectors in a phase-one index)
   and in a long-lived process (`ops.run` of a SearchRequest: what the runner answers over its
   socket, minus the socket), each paired with a copy of the installation made at one label
   (interleaved, same queries: the machine's drift falls on both; copies keep the shard's
   sparse files sparse), and the index's size on disk (allocated blocks, as `du`); then again
   after the nightly job's compaction (`store.optimize()`, upkeep/nightly.py) of both the index
   and its one-label reference (compacted against compacted). "Distinct
   content" is the size at one label scaled by the distinct chunks the labels hold (chunk
   points at n labels / at one).
Run it with the machine to itself: the figures go to docs/benchmarks.md ("Many branches").
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
from _common import checkout, first_parent, table  # noqa: E402
from monodex.scheduler.server import wait_listening  # noqa: E402

XDG_KEYS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")
QUERIES = [
    "retry the request with exponential backoff",
    "parse the rush.json configuration",
    "install dependencies with pnpm",
    "write a warning to the terminal",
]
CAT = "rushstack"

# Run by each build's interpreter: search latency in one long-lived process, and point counts.
_IN_PROCESS = """
import json, statistics, sys, time
from monodex.settings import config
from monodex.disk import paths
from monodex import requests as rq
from monodex.indexer.ops import answers
from monodex.indexer.session import Session
from monodex.indexer.store.base import Filter, Match
cat, label, rounds, queries = sys.argv[1], sys.argv[2], int(sys.argv[3]), json.loads(sys.argv[4])
p = paths.resolve()
with Session(config.load(p), p) as s:
    samples = []
    answers.run(s, rq.SearchRequest(cat, label, queries[0], mode="lexical"))
    for _ in range(rounds):
        for q in queries:
            t0 = time.perf_counter()
            answers.run(s, rq.SearchRequest(cat, label, q, mode="lexical"))
            samples.append(time.perf_counter() - t0)
    chunks = s.store.count(Filter(must=(Match("source_type", "code"),)))
print(json.dumps({"p50_ms": statistics.median(samples) * 1e3, "chunks": chunks}))
"""

# The nightly job's compaction (upkeep/nightly.py): Edge merges segments only when asked.
_OPTIMIZE = """
import json, time
from monodex.settings import config
from monodex.disk import paths
from monodex.indexer.session import Session
p = paths.resolve()
with Session(config.load(p), p) as s:
    t0 = time.perf_counter()
    s.store.optimize()
print(json.dumps({"seconds": time.perf_counter() - t0}))
"""


class Build:
    """One build's installation under `root`/`name` (bench/scale.py uses it too, for another catalog)."""

    def __init__(self, name: str, python: str, root: Path, repo: Path, *, catalog: str = CAT) -> None:
        self.name, self.python, self.repo, self.catalog = name, python, repo, catalog
        self.env = dict(os.environ)
        for k in XDG_KEYS:
            d = root / name / k.lower()
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.env[k] = str(d)
        self.data = root / name / "xdg_data_home"

    def mdx(self, *args: str) -> tuple[float, dict[str, Any]]:
        t0 = time.perf_counter()
        done = subprocess.run(
            [self.python, "-m", "monodex", *args, "--json"],
            env=self.env,
            capture_output=True,
            text=True,
            cwd=tempfile.gettempdir(),
        )
        wall = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"{self.name}: monodex {' '.join(args)} failed:\n{done.stderr[-2000:]}")
        return wall, json.loads(done.stdout) if done.stdout.strip() else {}

    def crawl(self, label: str, commit: str) -> tuple[float, float]:
        """(wall seconds of the command, seconds of the crawl itself: no interpreter start)."""
        wall, out = self.mdx(
            "crawl", "--catalog", self.catalog, "--label", label, "--commit", commit, "--no-wait-dense"
        )
        return wall, float(out.get("seconds") or 0.0)

    def search_wall(self, query: str) -> float:
        return self.mdx(
            "search", "--catalog", self.catalog, "--label", "main", "--text", query, "--mode", "lexical"
        )[0]

    def runner(self) -> subprocess.Popen[bytes]:
        """This installation's runner, listening (its fill job starts on the pending vectors, as
        after any phase-one crawl: creations below are preempting it, as a hook's refresh would)."""
        proc = subprocess.Popen(
            [self.python, "-m", "monodex", "runner"], env=self.env, cwd=tempfile.gettempdir(),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        sock = Path(self.env["XDG_RUNTIME_DIR"]) / "monodex" / "runner.sock"
        if not wait_listening(sock, timeout=60):  # a plain connect: the same for either build
            proc.kill()
            raise SystemExit(f"{self.name}: the runner never listened on {sock}")
        return proc

    def in_process(self, rounds: int) -> dict[str, Any]:
        argv = [self.python, "-c", _IN_PROCESS, self.catalog, "main", str(rounds), json.dumps(QUERIES)]
        done = subprocess.run(
            argv, env=self.env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir()
        )
        return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]

    def optimize(self) -> float:
        done = subprocess.run(
            [self.python, "-c", _OPTIMIZE], env=self.env, capture_output=True, text=True, check=True,
            cwd=tempfile.gettempdir(),
        )  # fmt: skip
        return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])

    def size_mb(self) -> float:
        """What the index takes on disk (allocated blocks, as `du`): Qdrant's mmap files are
        sparse, and their apparent size counts the holes."""
        total = sum(f.stat().st_blocks * 512 for f in (self.data / "monodex").rglob("*") if f.is_file())
        return total / 1e6


def sparse_copy(src: Path, dst: Path) -> None:
    """An installation copied with its holes kept: a dense copy (shutil's) of Qdrant's sparse
    mmap files is slower to open, and its searches were slower than the original's."""
    dst.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cp", "-a", "--sparse=always", f"{src}/.", str(dst)], check=True)


def paired(builds: tuple[Build, Build], rounds: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """CLI and in-process search p50 (ms) of two installations, interleaved in one run (the order
    alternates each round), so that the machine's drift falls on both alike."""
    cli: tuple[list[float], list[float]] = ([], [])
    for b in builds:
        b.search_wall(QUERIES[0])  # warm: the first process after a crawl reads the shard from disk
    for r in range(rounds):
        for q in QUERIES:
            for i in (0, 1) if r % 2 == 0 else (1, 0):
                cli[i].append(builds[i].search_wall(q) * 1e3)
    inproc: tuple[list[float], list[float]] = ([], [])
    for r in range(5):  # a few ms a search: each run's p50 drifts with the machine, so five, alternated
        for i in (0, 1) if r % 2 == 0 else (1, 0):
            inproc[i].append(builds[i].in_process(rounds)["p50_ms"])
    cli_p50 = (statistics.median(cli[0]), statistics.median(cli[1]))
    return cli_p50, (statistics.median(inproc[0]), statistics.median(inproc[1]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", help="the interpreter of the build before issue 25 (its .venv/bin/python)")
    ap.add_argument("--labels", type=int, default=100)
    ap.add_argument("--far", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--create-rounds", type=int, default=7, help="label 1 away: median of this many")
    ap.add_argument("--creation-only", action="store_true", help="skip the search and size stages")
    args = ap.parse_args()
    mirror, commit, part = quality.TARGETS["rushstack"]
    repo = checkout(mirror, rev=commit)
    chain = first_parent(repo, commit, max(args.far, args.labels) + 1)
    builds = [("this build", sys.executable)] + ([("baseline", args.baseline)] if args.baseline else [])
    create: list[list[object]] = []
    scale: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="monodex-labels-") as tmp:
        for name, python in builds:
            b = Build(name.replace(" ", "-"), python, Path(tmp), repo)
            policy = Path(b.env["XDG_CONFIG_HOME"]) / "monodex" / "crawl.json"
            if part:
                policy.parent.mkdir(parents=True, exist_ok=True)
                policy.write_text(json.dumps(part, indent=2))
            b.mdx("catalog", "add", CAT, str(repo))
            first = b.crawl("main", commit)[0]
            print(f"{name}: main crawled in {first:.1f} s", flush=True)
            row: list[object] = [name]
            snap = Path(tmp) / f"{b.name}-snap"
            sparse_copy(Path(tmp) / b.name, snap)
            trials = []
            for _ in range(args.create_rounds):  # a few hundred ms: one sample is mostly the machine
                trial = Build(f"{b.name}-trial", python, Path(tmp), repo)
                sparse_copy(snap, Path(tmp) / trial.name)
                # an index in use was written long ago: the copy's (and the main crawl's) dirty
                # pages written back during the timed crawl made it 0.63 s against 0.47 s after
                os.sync()
                trials.append(trial.crawl("away-1", chain[1]))
                shutil.rmtree(Path(tmp) / trial.name)
            shutil.rmtree(snap)
            wall, crawl = (statistics.median(x) for x in zip(*trials, strict=True))
            row.append(f"{wall:.2f} ({crawl:.2f})")
            spread = ", ".join(f"{w:.2f}" for w, _ in trials)
            print(f"{name}: label 1 commit away: {row[-1]} s, median of [{spread}]", flush=True)
            for k in (25, args.far):
                wall, crawl = b.crawl(f"away-{k}", chain[k])
                row.append(f"{wall:.2f} ({crawl:.2f})")
                print(f"{name}: label {k} commits away: {row[-1]} s", flush=True)
            for k in (25, args.far):  # not part of the search stages
                b.mdx("labels", "rm", "--catalog", CAT, "--label", f"away-{k}")
            b.mdx("gc", "--catalog", CAT)
            # the same creations handed to a runner (how hooks create labels), on a copy
            served = Build(f"{b.name}-runner", python, Path(tmp), repo)
            sparse_copy(Path(tmp) / b.name, Path(tmp) / served.name)
            proc = served.runner()
            try:
                for k in (1, 25, args.far):
                    wall, crawl = served.crawl(f"runner-{k}", chain[k])
                    row.append(f"{wall:.2f} ({crawl:.2f})")
                    print(f"{name}: label {k} commits away, through the runner: {row[-1]} s", flush=True)
            finally:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=120)
                shutil.rmtree(Path(tmp) / served.name, ignore_errors=True)
            create.append(row)
            if args.creation_only:
                continue
            # the installation at one label, copied: every later stage is timed against it, paired
            one = Build(f"{b.name}-one", python, Path(tmp), repo)
            sparse_copy(Path(tmp) / b.name, Path(tmp) / one.name)
            one_size, one_chunks = b.size_mb(), b.in_process(1)["chunks"]
            print(f"{name}: 1 label: {one_size:.0f} MB, {one_chunks} chunks", flush=True)
            made = 1
            stages: list[int | str] = [*sorted({10, args.labels}), f"{args.labels}, optimized"]
            for n in stages:
                while isinstance(n, int) and made < n:
                    b.crawl(f"n{made:03d}", chain[made])
                    made += 1
                if isinstance(n, str):  # both compacted, as after a night: the reference too
                    print(f"{name}: nightly optimize took {b.optimize():.0f} s", flush=True)
                    print(
                        f"{name}: nightly optimize of the 1-label copy took {one.optimize():.0f} s",
                        flush=True,
                    )
                (cli, cli1), (inp, inp1) = paired((b, one), args.rounds)
                size, chunks = b.size_mb(), b.in_process(1)["chunks"]
                distinct = one_size * chunks / one_chunks
                scale.append(
                    [name, n, f"{cli:.0f} / {cli1:.0f}", f"{cli / cli1:.2f}", f"{inp:.1f} / {inp1:.1f}",
                     f"{inp / inp1:.2f}", f"{size:.0f}", f"{chunks / one_chunks:.2f}", f"{size / distinct:.2f}"]
                )  # fmt: skip
                print(f"{name}: {n} labels: {scale[-1]}", flush=True)
    print()
    print(
        "label creation: wall seconds of `monodex crawl` (the crawl's own seconds), alone and handed to a runner"
    )
    far = f"{args.far} away"
    header = ["build", "1 commit away", "25 away", far, "runner: 1 away", "runner: 25 away", f"runner: {far}"]
    print(table(create, header))
    if args.creation_only:
        return
    print()
    print(
        "search p50 ms at n labels / at 1 label (paired, same run); chunks x1: distinct chunks against 1 label"
    )
    header = ["build", "labels", "CLI p50 ms", "CLI x1", "in-process p50 ms", "in-process x1", "size MB",
              "chunks x1", "size/distinct"]  # fmt: skip
    print(table(scale, header))


if __name__ == "__main__":
    main()
