"""The default embedder alone: start-up (import, sha256 check, session, first query) and raw
throughput at batch sizes 1/4/8/16 over synthetic ~800-byte TypeScript-like chunks of varied
length (the chunk budget of a 256-token model). Length-sorted batching, as the crawl uses it.

Usage: .venv/bin/python bench/embed.py [--threads 2] [--chunks 96] [--rounds 2]
Takes about a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg, table  # noqa: E402

_NAMES = (
    "user config path file index label commit chunk store query result value item options name list".split()
)
_TYPES = "string number boolean Promise<void> unknown".split()
_LINES = [
    "    const {a} = await this.{b}Service.get({c});",
    "    if (!{a}) {{\n      throw new Error(`missing {a} for ${{{c}}}`);\n    }}",
    "    for (const {a} of {b}s) {{\n      {c}.push({a}.{b});\n    }}",
    "    return {{ {a}, {b}, count: {c}.length }};",
    "  // Keep the {a} sorted so that the {b} lookup stays cheap.",
    "  private {a}: Map<string, {T}> = new Map();",
    "export function {a}From{B}({b}: {T}, {c}?: {T}): {T} {{",
    "  }}",
    "    this.{a} = {b} ?? {c};",
]

# Measures one fresh interpreter: what `monodex search` pays before its first vector.
_STARTUP = """
import time, json
t0 = time.perf_counter()
from monodex.indexer.embed.model import Embedder
from monodex.indexer.embed.spec import default_spec
from monodex.indexer.embed.stamp import verify
t1 = time.perf_counter()
spec = default_spec()
t2 = time.perf_counter()
hashed = verify(spec.model_path, spec.sha256)
t3 = time.perf_counter()
e = Embedder(spec, threads={threads})
t4 = time.perf_counter()
e.embed_query("parse a json file")
t5 = time.perf_counter()
print(json.dumps(dict(imp=t1-t0, verify=t3-t2, hashed=hashed, load=t4-t3, query=t5-t4, total=t5-t0)))
"""


def synthetic_chunk(rng: random.Random) -> str:
    """TypeScript-ish text of 400-1000 bytes, ~780 on average: ~225 MiniLM tokens, like real chunks
    cut at the ~800-byte budget of a 256-token model."""
    target = min(1000, max(400, int(rng.gauss(780, 120))))
    lines = [f"import {{ {rng.choice(_NAMES)} }} from './{rng.choice(_NAMES)}';"]
    while sum(len(x) + 1 for x in lines) < target:
        a, b, c = rng.sample(_NAMES, 3)
        lines.append(rng.choice(_LINES).format(a=a, b=b, c=c, B=b.title(), T=rng.choice(_TYPES)))
    return "\n".join(lines)[:target]


def _python(code: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.splitlines()[-1])
    return result


def startup(threads: int) -> list[dict[str, float]]:
    """Two fresh interpreters sharing one state dir: the first hashes the model, the second trusts the stamp."""
    return [_python(_STARTUP.replace("{threads}", str(threads))) for _ in range(2)]


# One fresh interpreter per measurement, so each batch size reports its own peak RSS (onnxruntime's
# arena grows with batch x sequence length and never shrinks).
_THROUGHPUT = """
import json, resource, sys, time
sys.path.insert(0, {here!r})
from embed import corpus
from monodex.indexer.embed.model import Embedder
from monodex.indexer.embed.spec import default_spec
texts = corpus({chunks})
e = Embedder(default_spec(), threads={threads}, batch_size={batch})
e.embed_documents(texts[:16])
t0, c0 = time.perf_counter(), time.process_time()
e.embed_documents(texts)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(dict(rate=len(texts) / wall, cpu_ms=cpu / len(texts) * 1000, rss=rss)))
"""


def corpus(n: int) -> list[str]:
    rng = random.Random(7)
    return [synthetic_chunk(rng) for _ in range(n)]


def throughput(batches: tuple[int, ...], *, chunks: int, threads: int, rounds: int) -> list[list[object]]:
    """Rounds interleave the batch sizes, so load from other processes hits all of them alike."""
    here = str(Path(__file__).resolve().parent)
    runs: dict[int, list[dict[str, float]]] = {b: [] for b in batches}
    for _ in range(rounds):
        for b in batches:
            code = _THROUGHPUT.format(here=here, chunks=chunks, threads=threads, batch=b)
            runs[b].append(_python(code))
    return [
        [
            b,
            f"{statistics.median(r['rate'] for r in rs):.1f}",
            f"{max(r['rate'] for r in rs):.1f}",
            f"{statistics.median(r['cpu_ms'] for r in rs):.0f}",
            f"{max(r['rss'] for r in rs):.0f}",
        ]
        for b, rs in runs.items()
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--threads", type=int, default=2, help="onnxruntime intra-op threads")
    ap.add_argument("--chunks", type=int, default=64, help="synthetic chunks per measurement")
    ap.add_argument("--rounds", type=int, default=3, help="measurements per batch size (median reported)")
    args = ap.parse_args()
    with isolated_xdg():
        rows = [
            [
                "first (hashes)" if r["hashed"] else "later (stamp)",
                *(f"{r[k] * 1000:.0f}" if k != "verify" else f"{r[k] * 1000:.1f}" for k in _PHASES),
            ]
            for r in startup(args.threads)
        ]
        print(table(rows, ["start-up", *[f"{k} ms" for k in _PHASES]]))
        from monodex.indexer.embed.model import Embedder
        from monodex.indexer.embed.spec import default_spec

        texts = corpus(args.chunks)
        tokens = [Embedder(default_spec(), threads=1).count_tokens(t) for t in texts]
        print(
            f"\n{len(texts)} chunks, {statistics.mean(len(t) for t in texts):.0f} bytes and "
            f"{statistics.mean(tokens):.0f} tokens on average ({min(tokens)}-{max(tokens)}), "
            f"{sum(t > 256 for t in tokens)} truncated; threads={args.threads}"
        )
        load = os.getloadavg()[0]
        rows = throughput((1, 4, 8, 16), chunks=args.chunks, threads=args.threads, rounds=args.rounds)
        head = ["batch", "chunks/s (median)", "chunks/s (best)", "CPU ms/chunk", "peak RSS MB"]
        print(table(rows, head))
        print(f"load average before/after: {load:.1f}/{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


_PHASES = ("imp", "verify", "load", "query", "total")

if __name__ == "__main__":
    main()
