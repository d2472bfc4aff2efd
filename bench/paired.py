"""Two builds' ranking compared query by query: is a difference more than the luck of which
questions a set happens to hold?

Usage: python bench/paired.py BEFORE.json AFTER.json [--metric MRR@10 --metric R@10] [--unanswerable-as-0]

Each file is `bench/rank_eval.py --per-query` output of one build on the same split. Only queries
both answered are compared (one build may index files the other does not: their queries are
counted apart), unless `--unanswerable-as-0`: a query one build has no indexed answer for scores
0 there, as it does for a user who asks it. For each set and for all, the mean of each build, the mean paired difference
(after - before), a 95 % bootstrap interval of that difference (10,000 resamples of the queries,
fixed seed), and how many queries got better, worse or stayed. An interval that holds 0 says the
two builds cannot be told apart on these questions.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from pathlib import Path

RESAMPLES = 10_000


def interval(diffs: list[float], *, seed: int = 25) -> tuple[float, float]:
    """The 2.5th and 97.5th percentiles of the mean over bootstrap resamples."""
    rng = random.Random(seed)
    n = len(diffs)
    means = sorted(sum(rng.choices(diffs, k=n)) / n for _ in range(RESAMPLES))
    return means[int(0.025 * RESAMPLES)], means[int(0.975 * RESAMPLES) - 1]


def compare(before: dict[str, dict], after: dict[str, dict], metric: str) -> list[str]:
    both = sorted(set(before) & set(after))
    sets = sorted({before[q]["set"] for q in both})
    lines = []
    for name in [*sets, "all"]:
        ids = [q for q in both if name == "all" or before[q]["set"] == name]
        a = [before[q][metric] for q in ids]
        b = [after[q][metric] for q in ids]
        diffs = [y - x for x, y in zip(a, b, strict=True)]
        lo, hi = interval(diffs)
        up, down = sum(d > 1e-9 for d in diffs), sum(d < -1e-9 for d in diffs)
        lines.append(
            f"  {name} ({len(ids)}): {statistics.fmean(a):.3f} -> {statistics.fmean(b):.3f}  "
            f"diff {statistics.fmean(diffs):+.3f} [95% {lo:+.3f}, {hi:+.3f}]  "
            f"better {up}, worse {down}, same {len(ids) - up - down}"
        )
    return lines


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("--metric", action="append", default=[])
    ap.add_argument("--unanswerable-as-0", action="store_true")
    args = ap.parse_args()
    before, after = (json.loads(p.read_text()) for p in (args.before, args.after))
    only = {"before": sorted(set(before) - set(after)), "after": sorted(set(after) - set(before))}
    if args.unanswerable_as_0:
        for mine, other in ((before, after), (after, before)):
            for q in set(other) - set(mine):
                mine[q] = {**{k: 0.0 for k, v in other[q].items() if k != "set"}, "set": other[q]["set"]}
    for metric in args.metric or ["MRR@10", "R@10"]:
        print(f"{metric}: {args.before.name} -> {args.after.name}")
        print("\n".join(compare(before, after, metric)))
    for who, ids in only.items():
        if ids:
            counted = ", counted 0 for the other" if args.unanswerable_as_0 else ""
            print(f"  only {who} has an indexed answer for {len(ids)}{counted}: {', '.join(ids)}")


if __name__ == "__main__":
    main()
