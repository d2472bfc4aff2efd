"""Phase two's model on every core (issue 36): chunks/s of one onnxruntime session against
several, in the same run on the same texts, with the raw model's throughput beside them.

Usage: MONODEX_BENCH_MIRRORS=/work/.mirror .venv/bin/python bench/embed_workers.py
           [--cores N] [--texts 512] [--rounds 3] [--repo microsoft+rushstack] [--json] [--record]

The texts are real: the embedded text (path, package, symbol header + chunk) of a seeded sample
of chunks of the mirror's HEAD (bench/.mirrors, or $MONODEX_BENCH_MIRRORS), made by the crawl's
own chunkers; without the mirror, synthetic TypeScript-like chunks (bench/embed.py's). Each
arrangement embeds all of them with Embedder.embed_documents in slices as phase two does
(write/fill.py: SLICE texts per session side by side, length-sorted, batch size 1), after a
warm-up, everything loaded beforehand:

- `1 session x N threads`: the arrangement before issue 36 (embedder.workers 1);
- `S sessions x T threads`: what monodex does now with its defaults for N cores (config.py:
  one session per core up to 4, the cores shared among them), threads of one process, each with
  its own InferenceSession (onnxruntime releases the GIL while it runs);
- `N processes x 1 thread`: the same texts split between N processes of one session each (the
  other way to use the cores, for comparison);
- `raw: ...`: onnxruntime alone (session.run on the texts tokenized beforehand, one text a call,
  no pooling, no Python around it), for one session of N threads and N sessions of one thread in
  threads: what the model gives on this machine, the ceiling of the rows above.

Each row: chunks/s (wall) and chunks per CPU-second (the CPU time of this process and, for the
processes row, of its workers: a figure a busy machine distorts less). Rounds are interleaved
(arrangement after arrangement), the median is reported. Run it with the machine to itself for
figures; --record appends the run's row to docs/benchmarks.md ("Every core in phase two").
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import build_id, checkout, isolated_xdg, mirrors, record, table  # noqa: E402
from monodex.indexer.write.fill import SLICE  # noqa: E402

from monodex.observe import logs  # noqa: E402

HEADING = "## Every core in phase two"
Run = Callable[[], float]  # one pass over all the texts; returns CPU seconds spent in other processes


def sample_texts(repo: str, n: int, seed: int = 7) -> tuple[list[str], str]:
    """`n` embedded texts of chunks of the mirror's HEAD (seeded), or synthetic ones."""
    rng = random.Random(seed)
    if not (mirrors() / repo / "repo").exists():
        from embed import synthetic_chunk

        return [synthetic_chunk(rng) for _ in range(n)], "synthetic TypeScript-like chunks"
    from monodex.indexer import chunkers
    from monodex.indexer.chunkers.base import FileContext
    from monodex.indexer.embed.spec import default_spec
    from monodex.indexer.git import gitobjects
    from monodex.indexer.git.plan import plan_commit
    from monodex.indexer.points.payloads import FileInfo, embed_text
    from monodex.indexer.policy import crawlpolicy

    from monodex.disk import paths

    work = checkout(repo)  # a clone sharing the mirror's objects, no work tree
    budget = chunkers.budget_for(default_spec().max_tokens)
    with gitobjects.open_repo(work) as git:
        plan = plan_commit(git, git.resolve("HEAD"), crawlpolicy.load(work, paths.resolve()), "bench")
        texts: list[str] = []
        for f, content in plan.reader(rng.sample(plan.files, min(len(plan.files), n))):
            info = FileInfo("bench", "bench:x", f.relative_path, f.package_name, f.blob_id, "", "", "", "")
            ctx = FileContext(f.relative_path, f.package_name, budget)
            texts += [embed_text(info, c) for c in chunkers.chunk_file(f.strategy, content.decode(), ctx)]
    return rng.sample(texts, min(n, len(texts))), f"chunks of {repo} HEAD"


def embedder(threads: int, workers: int) -> Any:
    from monodex.indexer.embed.model import Embedder
    from monodex.indexer.embed.spec import default_spec

    return Embedder(default_spec(), threads=threads, workers=workers)


def in_slices(embed: Callable[[list[str]], Any], texts: list[str], parallel: int) -> None:
    """As write/fill.py feeds the model: SLICE texts per session in each call."""
    step = SLICE * parallel
    for i in range(0, len(texts), step):
        embed(texts[i : i + step])


def now_arrangement(cores: int) -> tuple[int, int]:
    """(sessions, threads each): monodex's defaults (config.py) on `cores` cores."""
    from monodex.settings.config import EmbedderConfig

    e = EmbedderConfig(threads=cores)
    return e.sessions, e.session_threads


def arrangements(cores: int, texts: list[str], pool: Any) -> dict[str, Run]:
    """name -> one pass over all the texts; everything is loaded and warm beforehand."""
    sessions, threads = now_arrangement(cores)
    old, new = embedder(cores, 1), embedder(threads, sessions)
    for e in (old, new):
        in_slices(e.embed_documents, texts[: SLICE * sessions * 2], e.parallel)  # every session made
    raw_one, raw_many = raw_runs(cores, texts)

    def in_process(e: Any) -> Run:
        def run() -> float:
            in_slices(e.embed_documents, texts, e.parallel)
            return 0.0

        return run

    return {
        f"1 session x {cores} threads (before)": in_process(old),
        f"{sessions} sessions x {threads} thread(s) (now)": in_process(new),
        f"{cores} processes x 1 thread": lambda: sum(
            pool.map(_embed_part, [texts[i::cores] for i in range(cores)])
        ),
        f"raw: 1 session x {cores} threads": raw_one,
        f"raw: {cores} sessions x 1 thread": raw_many,
    }


_WORKER: Any = None


def _init_worker() -> None:
    """A process of the processes row: its session loaded and warm before any pass."""
    global _WORKER
    _WORKER = embedder(1, 1)
    _WORKER.embed_documents(["warm up"])


def _embed_part(part: list[str]) -> float:
    """Embed `part` in this worker; the CPU seconds it took (the parent cannot see them: its
    workers are still running when the pass ends)."""
    assert _WORKER is not None
    cpu = time.process_time()
    in_slices(_WORKER.embed_documents, part, 1)
    return time.process_time() - cpu


def raw_runs(cores: int, texts: list[str]) -> tuple[Run, Run]:
    """onnxruntime alone on the same inputs: tokenized once (length-sorted), one text a call,
    sessions made as monodex makes them (model._session)."""
    from monodex.indexer.embed.model import _feed, _pad, _session

    e = embedder(1, 1)
    encodings = sorted(e._encode([e.spec.document_prefix + t for t in texts]), key=lambda x: len(x.ids))
    feeds = [_feed(e.inputs, *_pad([enc], e._pad_id)) for enc in encodings]
    one = _session(e.spec.model_path, cores)
    many = [_session(e.spec.model_path, 1) for _ in range(cores)]
    for s in (one, *many):
        s.run(None, feeds[0])
    executor = ThreadPoolExecutor(cores)

    def run_one() -> float:
        for f in feeds:
            one.run(None, f)
        return 0.0

    def run_part(k: int) -> None:
        for f in feeds[k::cores]:
            many[k].run(None, f)

    def run_many() -> float:
        list(executor.map(run_part, range(cores)))
        return 0.0

    return run_one, run_many


def measure(runs: dict[str, Run], texts: int, rounds: int) -> dict[str, tuple[float, float]]:
    """name -> (median chunks/s, median chunks per CPU-second), rounds interleaved."""
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, run in runs.items():
            w, c = time.perf_counter(), time.process_time()
            elsewhere = run()
            wall[name].append(texts / (time.perf_counter() - w))
            cpu[name].append(texts / max(time.process_time() - c + elsewhere, 1e-9))
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in runs}


def recorded_row(
    rows: dict[str, tuple[float, float]], args: argparse.Namespace, texts: int, source: str
) -> list[object]:
    """The run's line of the table in docs/benchmarks.md."""
    before, now, procs, raw_one, raw_many = (w for w, _ in rows.values())
    return [
        f"{time.strftime('%Y-%m-%d')} {build_id()}",
        f"{args.cores} ({os.getloadavg()[0]:.1f} load)",
        f"{texts} {source}",
        f"{before:.1f}",
        f"{now:.1f}",
        f"**{now / before:.2f}x**",
        f"{procs:.1f}",
        f"{raw_one:.1f} / {raw_many:.1f}",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument(
        "--cores", type=int, default=len(os.sched_getaffinity(0)), help="N (default: usable cores)"
    )
    ap.add_argument("--texts", type=int, default=512, help="texts embedded by each arrangement per round")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (the median is reported)")
    ap.add_argument(
        "--repo", default="microsoft+rushstack", help="the mirror (owner+name) the texts come from"
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--record", action="store_true", help=f"append the run to docs/benchmarks.md ({HEADING[3:]})"
    )
    args = ap.parse_args()
    logs.configure()  # info and above: the crawl's chunkers log each nameless package.json at debug
    import multiprocessing as mp

    with isolated_xdg():
        texts, source = sample_texts(args.repo, args.texts)
        with mp.get_context("spawn").Pool(args.cores, initializer=_init_worker) as pool:
            rows = measure(arrangements(args.cores, texts, pool), len(texts), args.rounds)
    if args.json:
        print(json.dumps({"texts": len(texts), "source": source, "cores": args.cores, "rows": rows}))
    else:
        before = next(iter(rows.values()))[0]
        body = [[name, f"{w:.1f}", f"{c:.1f}", f"{w / before:.2f}x"] for name, (w, c) in rows.items()]
        print(
            f"{len(texts)} texts ({source}), {args.cores} cores, median of {args.rounds} interleaved rounds"
        )
        print(table(body, ["arrangement", "chunks/s", "chunks per CPU-second", "vs before"]))
    if args.record:
        record(HEADING, [recorded_row(rows, args, len(texts), source)])


if __name__ == "__main__":
    main()
