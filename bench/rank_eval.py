"""Ranking quality in-process, for fast iteration on ranking signals (issue 14).

Usage: .venv/bin/python bench/rank_eval.py sparo|rushstack|pnpm [--split tune|test|all]
           [--set NAME=VALUE ...] [--misses] [--off SIGNAL ...]

Opens the index bench/quality.py keeps under bench/.work/xdg-<target> (crawl it there first, or
copy the lead's) and runs `indexer/read/search.search` directly on each query of the split: no
runner, no CLI, the query embedding cached across variants. `--set` overrides one constant of
`signals.Weights` (e.g. `--set definition=0.3`), `--off` zeroes a signal's constant(s); `--misses`
lists every query whose first relevant file is not first, with where the relevant files landed.
Scores as bench/quality.py does: recall and MRR over distinct files at 10, relevant files limited
to those indexed. Confirm final figures with bench/quality.py (the real CLI through the runner).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
from _common import persistent_xdg  # noqa: E402


class CachedEmbedder:
    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.cache: dict[str, Sequence[float]] = {}

    def embed_query(self, text: str) -> Sequence[float]:
        if text not in self.cache:
            self.cache[text] = self.engine.embed_query(text)
        return self.cache[text]


def load_queries(name: str, split: str, indexed: set[str]) -> list[dict[str, Any]]:
    import json

    out = []
    for f in sorted(quality.EVAL.glob(f"{name}-*.json")):
        for q in json.loads(f.read_text())["queries"]:
            s = quality.split_of(q["id"], name)
            rel = {r for r in q["relevant"] if r in indexed}
            if rel and (split == "all" or s == split):
                out.append({**q, "set": f.stem, "split": s, "relevant": rel})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", choices=sorted(quality.TARGETS))
    ap.add_argument("--split", default="tune", choices=("tune", "test", "all"))
    ap.add_argument("--set", action="append", default=[], help="NAME=VALUE: a signals.Weights constant")
    ap.add_argument("--off", action="append", default=[], help="a signal to switch off")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument("--explain", default=None, help="print the top 5 with --explain for queries containing this")
    args = ap.parse_args()
    if args.target in quality.HELD_OUT and args.split != "test":
        raise SystemExit(f"{args.target} is held out: use --split test")

    with persistent_xdg(args.target):
        from monodex.indexer.points import filters
        from monodex.indexer.read import search as searching
        from monodex.indexer.read import signals
        from monodex.indexer.session import Session

        from monodex import config, paths

        weights = signals.Weights()
        for item in args.set:
            key, value = item.split("=", 1)
            weights = dataclasses.replace(weights, **{key: float(value)})
        weights = signals.switched_off(weights, args.off)
        p = paths.resolve()
        with Session(config.load(p), p) as s:
            indexed = {
                str(r.payload["relative_path"])
                for r in s.store.scroll(filters.label_chunks(f"{args.target}:main", *()))
                if r.payload.get("chunk_ordinal") == 1
            }
            qs = load_queries(args.target, args.split, indexed)
            emb = CachedEmbedder(s.engine)
            for q in qs:
                emb.embed_query(q["query"])
            ranking = searching.Ranking(mode=args.mode, signals=weights, explain=args.explain is not None)
            rows, times = [], []
            for q in qs:
                t0 = time.perf_counter()
                found = searching.search(
                    s.store,
                    emb,
                    catalog=args.target,
                    label="main",
                    text=q["query"],
                    limit=10,
                    ranking=ranking,
                )
                times.append(time.perf_counter() - t0)
                ranked = [r["relative_path"] for r in found["results"]]
                m = quality.metrics(ranked, q["relevant"])
                rows.append(m)
                if args.explain is not None and args.explain.lower() in q["query"].lower():
                    print(f"- {q['query']!r} relevant {sorted(q['relevant'])}")
                    for r in found["results"][:5]:
                        e = r["explain"]
                        moved = "; ".join(f"{x['signal']} {x['change']:+.3f} ({x['why']})" for x in e["signals"])
                        print(f"    {r['score']:.3f} {r['relative_path']} fused #{e['fused_rank']} {moved}")
                if args.misses and m["MRR@10"] < 1:
                    where = {r: (ranked.index(r) + 1 if r in ranked else None) for r in sorted(q["relevant"])}
                    print(f"- [{q['set']}] {q['query']!r}  MRR {m['MRR@10']:.2f}  relevant at {where}")
                    for i, path in enumerate(ranked[:5], start=1):
                        print(f"    {i}. {path}")
    print(f"{args.target} {args.split}: weights {weights}")
    for set_name in sorted({q["set"] for q in qs}):
        picked = [r for r, q in zip(rows, qs, strict=True) if q["set"] == set_name]
        m = quality.mean(picked)
        print(f"  {set_name} ({len(picked)}): R@10 {m['R@10']:.3f} MRR@10 {m['MRR@10']:.3f}")
    m = quality.mean(rows)
    print(
        f"  all ({len(rows)}): R@1 {m['R@1']:.3f} R@5 {m['R@5']:.3f} R@10 {m['R@10']:.3f} "
        f"MRR@10 {m['MRR@10']:.3f} nDCG@10 {m['nDCG@10']:.3f}"
    )
    print(
        f"  search without query embedding p50 {statistics.median(times) * 1e3:.1f} ms (not a figure, shared cores)"
    )


if __name__ == "__main__":
    main()
