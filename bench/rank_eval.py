"""Ranking quality in-process, for fast iteration on ranking signals (issue 14).

Usage: .venv/bin/python bench/rank_eval.py <a bench/quality.py target> [--split tune|test|all|sanity]
           [--set NAME=VALUE ...] [--misses] [--off SIGNAL ...] [--bm25] [--per-query OUT.json]

Opens the index bench/quality.py keeps under bench/.work/xdg-<target> (crawl it there first, or
copy the lead's) and runs `indexer/read/search.search` directly on each query of the split: no
runner, no CLI, the query embedding cached across variants. `--set` overrides one constant of
`signals.Weights` (e.g. `--set definition=0.3`), `--off` zeroes a signal's constant(s); `--misses`
lists every query whose first relevant file is not first, with where the relevant files landed.
Scores as bench/quality.py does: recall and MRR over distinct files at 10, relevant files limited
to those indexed. Confirm final figures with bench/quality.py (the real CLI through the runner).
`--per-query` writes each query's figures, for bench/paired.py to compare two builds query by query.
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
from _common import persistent_xdg  # noqa: E402


class History:
    """The co-change counts a query is ranked with (`--history`). `asof`: only the commits that
    landed before the query's PR (its `date`), counted as indexer/history/catchup.py counts them
    (monodex eval's evaluate/past.py, which cuts by ancestry where this cuts by date), so a figure
    is what a user asking before that PR would have had; a query without a date (the hand-written
    ones) gets the whole history."""

    def __init__(self, s: Any, target: str, how: str) -> None:
        from monodex.indexer.evaluate import past
        from monodex.indexer.git.source import open_source
        from monodex.indexer.history import changed, cochanges

        self.how, self.full = how, None
        if how == "full":
            self.full = cochanges.History.open(s.paths.state_dir, target)
            if self.full is None:
                raise SystemExit(f"no history counted for {target}: run `monodex crawl` on it first")
        elif how == "asof":
            source = open_source(s.config().catalog(target), s.paths)
            text = changed.log(source.catalog.path, source.repo.resolve("HEAD"))
            # under today's names, as the index has them; then oldest first, to cut at a date
            commits = sorted(changed.follow_moves(changed.parse_log(text)), key=lambda c: c.date)
            self.dates = [c.date for c in commits]
            self.growing = past.Growing(commits, source.policy.should_crawl)

    def before(self, date: str | None) -> Any:
        if self.how == "full":
            return self.full
        if self.how == "off":
            return None
        # the commits dated before `date` (queries come in date order: the counts only grow)
        return self.growing.upto(len(self.dates) if date is None else bisect.bisect_left(self.dates, date))


def load_queries(name: str, split: str, indexed: set[str]) -> list[dict[str, Any]]:
    """The split's PR-title and hand-written queries; `--split sanity`: the doc-sanity sets."""
    import json

    out = []
    for f in sorted(quality.EVAL.glob(f"{quality.query_set(name)}-*.json")):
        doc = json.loads(f.read_text())
        sanity = doc.get("kind") == quality.SANITY
        for q in doc["queries"]:
            s = "sanity" if sanity else quality.split_of(q["id"], name)
            rel = {r for r in q["relevant"] if r in indexed}
            if rel and (s == split or (split == "all" and not sanity)):
                out.append({**q, "set": f.stem, "split": s, "relevant": rel})
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", choices=sorted(quality.TARGETS))
    ap.add_argument("--split", default="tune", choices=("tune", "test", "all", "sanity"))
    ap.add_argument("--set", action="append", default=[], help="NAME=VALUE: a signals.Weights constant")
    ap.add_argument("--off", action="append", default=[], help="a signal to switch off")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--mode", default="hybrid")
    ap.add_argument(
        "--history",
        default="asof",
        choices=("asof", "full", "off"),
        help="co-change counts: asof (each query sees only commits that landed before its PR: no "
        "query learns from its own PR; the default), full (the index's own, as a search has them), off",
    )
    ap.add_argument("--cost", action="store_true", help="time each signal on the real candidate lists")
    ap.add_argument(
        "--bm25",
        action="store_true",
        help="also score BM25 over the same chunks on the same queries (quality.py's baseline)",
    )
    ap.add_argument("--per-query", type=Path, help="write {query id: its figures} to this JSON file")
    ap.add_argument(
        "--explain", default=None, help="print the top 5 with --explain for queries containing this"
    )
    args = ap.parse_args()
    if args.target in quality.HELD_OUT and args.split not in ("test", "sanity"):
        raise SystemExit(f"{args.target} is held out: use --split test")

    with persistent_xdg(args.target):
        from monodex.indexer.evaluate.run import QueryCache
        from monodex.indexer.points import filters, membership
        from monodex.indexer.rank import candidates
        from monodex.indexer.read import search as searching
        from monodex.indexer.session import Session

        from monodex.disk import paths
        from monodex.settings import config

        weights = candidates.Weights()
        for item in args.set:
            key, value = item.split("=", 1)
            flag = {"true": True, "false": False}.get(value.lower())
            weights = dataclasses.replace(weights, **{key: float(value) if flag is None else flag})
        weights = candidates.switched_off(weights, args.off)
        p = paths.resolve()
        with Session(config.load(p), p) as s:
            chunks = [
                {"id": r.id, **r.payload}
                for r in s.store.scroll(filters.label_chunks(membership.of(s.store, f"{args.target}:main")))
            ]
            indexed = {str(c["relative_path"]) for c in chunks}
            qs = load_queries(args.target, args.split, indexed)
            emb = QueryCache(s.engine.embed_query)
            for q in qs:
                emb.embed_query(q["query"])
            ranking = searching.Ranking(mode=args.mode, signals=weights, explain=args.explain is not None)
            rows, times = [], []
            past = History(s, args.target, args.history)
            qs.sort(key=lambda q: (q.get("date") or "~", q["id"]))  # as-of counts grow with the date
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
                    history=past.before(q.get("date")),
                )
                times.append(time.perf_counter() - t0)
                ranked = [r["relative_path"] for r in found.results]
                m = quality.metrics(ranked, q["relevant"])
                rows.append(m)
                if args.explain is not None and args.explain.lower() in q["query"].lower():
                    print(f"- {q['query']!r} relevant {sorted(q['relevant'])}")
                    for r in found["results"][:5]:
                        e = r["explain"]
                        moved = "; ".join(
                            f"{x['signal']} {x['change']:+.3f} ({x['why']})" for x in e["signals"]
                        )
                        print(f"    {r['score']:.3f} {r['relative_path']} fused #{e['fused_rank']} {moved}")
                if args.misses and m["MRR@10"] < 1:
                    where = {r: (ranked.index(r) + 1 if r in ranked else None) for r in sorted(q["relevant"])}
                    print(f"- [{q['set']}] {q['query']!r}  MRR {m['MRR@10']:.2f}  relevant at {where}")
                    for i, path in enumerate(ranked[:5], start=1):
                        print(f"    {i}. {path}")
            if args.cost:
                cost(s.store, emb, args.target, qs, weights, s.paths.state_dir)
    baseline = bm25_rows(chunks, qs) if args.bm25 else []
    if args.per_query:
        import json

        per = {q["id"]: {**m, "set": q["set"]} for m, q in zip(rows, qs, strict=True)}
        args.per_query.write_text(json.dumps(per, indent=1, sort_keys=True))
    print(f"{args.target} {args.split}: weights {weights}")
    for set_name in sorted({q["set"] for q in qs}):
        picked = [r for r, q in zip(rows, qs, strict=True) if q["set"] == set_name]
        m = quality.mean(picked)
        print(f"  {set_name} ({len(picked)}): R@10 {m['R@10']:.3f} MRR@10 {m['MRR@10']:.3f}")
    for who, scored in (("all", rows), ("BM25 (chunks), all", baseline)):
        if scored:
            m = quality.mean(scored)
            print(
                f"  {who} ({len(scored)}): R@1 {m['R@1']:.3f} R@5 {m['R@5']:.3f} R@10 {m['R@10']:.3f} "
                f"MRR@10 {m['MRR@10']:.3f} nDCG@10 {m['nDCG@10']:.3f}"
            )
    print(
        f"  search without query embedding p50 {statistics.median(times) * 1e3:.1f} ms (not a figure, shared cores)"
    )


def bm25_rows(chunks: list[dict[str, Any]], qs: list[dict[str, Any]]) -> list[dict[str, float]]:
    """BM25 over the index's chunks, tests moved down and files grouped as the search does."""
    bm25 = quality.BM25(chunks)
    kinds = {c["id"]: c.get("chunk_kind", "content") for c in chunks}
    return [
        quality.metrics(quality.demote_and_group(bm25.search(q["query"]), chunk_kind=kinds), q["relevant"])
        for q in qs
    ]


def cost(store: Any, emb: Any, target: str, qs: list[dict[str, Any]], w: Any, state_dir: Path) -> None:
    """Each signal's own time on each query's real candidates (fresh copies, 5 runs, the best):
    what the re-ranking stage adds to a search. Not a figure on shared cores."""
    import copy

    from monodex.indexer.history.cochanges import History
    from monodex.indexer.points import filters, lexical, membership
    from monodex.indexer.rank import candidates, cochange, kinds, named, ranking, signals
    from monodex.indexer.read.search import _candidates
    from monodex.indexer.store.base import RRF_K

    steps = {
        "store: dense + lexical lists (now)": None,
        "store: Qdrant's fused query (before)": None,
        "fuse": None,
        "docs": lambda c, t: kinds.apply_docs(c, w),
        "package": lambda c, t: named.apply_package(c, t, w),
        "definition": lambda c, t: named.apply_definition(c, t, w),
        "file": lambda c, t: signals.apply_file_evidence(c, w),
        "tested": lambda c, t: signals.apply_tested(c, w),
        "rank (roles, translations, files)": lambda c, t: ranking.rank(
            c, limit=10, per_file=1, include_tests=False
        ),
    }
    spent: dict[str, list[float]] = {k: [] for k in steps}
    flt = filters.label_chunks(membership.of(store, f"{target}:main"))
    n = _candidates(10, 1)
    sizes = []
    for q in qs:
        qd, qs_ = emb.embed_query(q["query"]), lexical.query_vector(q["query"])
        two = []
        for _ in range(5):
            t0 = time.perf_counter()
            dense, sparse = store.search(qd, flt, limit=n), store.search_sparse(qs_, flt, limit=n)
            two.append(time.perf_counter() - t0)
        spent["store: dense + lexical lists (now)"].append(min(two))
        spent["store: Qdrant's fused query (before)"].append(
            min(
                _timed(lambda qd=qd, qs_=qs_: store.query_hybrid(qd, qs_, flt, limit=n, prefetch_limit=n))
                for _ in range(5)
            )
        )
        spent["fuse"].append(
            min(
                _timed(lambda d=dense, sp=sparse: candidates.fuse(d, sp, k=RRF_K, weights=(1.0, 1.0)))
                for _ in range(5)
            )
        )
        cands = candidates.fuse(dense, sparse, k=RRF_K, weights=(1.0, 1.0))
        sizes.append(len(cands))
        for name, fn in steps.items():
            if fn is None:
                continue
            runs = []
            for _ in range(5):
                mine = copy.deepcopy(cands)
                runs.append(_timed(lambda fn=fn, mine=mine, text=q["query"]: fn(mine, text)))
            spent[name].append(min(runs))
            fn(cands, q["query"])  # the next step sees what this one did

        def history(cands: Any = cands) -> None:  # as a search does it: open, count, close
            kept = ranking.rank(cands, limit=len(cands), per_file=1, include_tests=False)
            past = History.open(state_dir, target)
            cochange.reorder(kept, past, w.history)
            if past is not None:
                past.close()

        copies = [copy.deepcopy(cands) for _ in range(5)]
        spent.setdefault("history (open the counts, rank every candidate file, re-order)", []).append(
            min(_timed(lambda mine=mine: history(mine)) for mine in copies)
        )
    print(
        f"  per-step time on {statistics.fmean(sizes):.0f} candidates a query (not a figure, shared cores):"
    )
    for name, times in spent.items():
        print(f"    {name}: p50 {statistics.median(times) * 1e3:.3f} ms, max {max(times) * 1e3:.3f} ms")


def _timed(fn: Any) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
