"""What the history signal costs a search (issue 14): the same queries with and without it, in
one run, alternating, on the index bench/quality.py keeps (crawl it there first).

Usage: .venv/bin/python bench/history_cost.py [rushstack|sparo|pnpm] [--rounds 3]

Two paths, each with history on and off:
- `ops.run`: a whole in-process search (query embedding, Qdrant, ranking, freshness line);
- `search()`: the query embedding cached, so only the search code is timed (Qdrant, fusion,
  signals, ranking, history).
Prints p50 / p95 of each and the first crawl's counting time (the history table rebuilt in a
temporary copy). Run it with the machine to itself: the figures are only worth that.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
import rank_eval  # noqa: E402
from _common import persistent_xdg  # noqa: E402


def _stats(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[round(0.95 * (len(ordered) - 1))]
    return f"p50 {statistics.median(samples) * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", nargs="?", default="rushstack", choices=sorted(quality.TARGETS))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with persistent_xdg(args.target):
        from monodex.indexer.git.source import open_source
        from monodex.indexer.history import catchup, cochanges
        from monodex.indexer.ops import answers
        from monodex.indexer.points import filters, membership
        from monodex.indexer.read import search as searching
        from monodex.indexer.session import Session

        from monodex.disk import paths
        from monodex.requests import SearchRequest
        from monodex.settings import config

        p = paths.resolve()
        real_open = cochanges.History.open
        with Session(config.load(p), p) as s:
            source = open_source(s.config().catalog(args.target), s.paths)
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                n = catchup.update(
                    Path(tmp) / "h.sqlite",
                    source.catalog.path,
                    source.repo.resolve("HEAD"),
                    source.policy.should_crawl,
                    source.policy.fingerprint,
                )
                print(
                    f"{args.target}: counting {n} commits from nothing took {time.perf_counter() - t0:.1f} s"
                )
            if real_open(s.paths.state_dir, args.target) is None:
                raise SystemExit(
                    f"no history counted for {args.target}: run bench/quality.py {args.target} first"
                )
            indexed = {
                str(r.payload["relative_path"])
                for r in s.store.scroll(filters.label_chunks(membership.of(s.store, f"{args.target}:main")))
                if r.payload.get("chunk_ordinal") == 1
            }
            texts = [q["query"] for q in rank_eval.load_queries(args.target, "all", indexed)]
            emb = rank_eval.CachedEmbedder(s.engine)
            for t in texts:
                emb.embed_query(t)
            answers.run(s, SearchRequest(args.target, "main", "warm up"))
            whole: dict[bool, list[float]] = {True: [], False: []}
            code: dict[bool, list[float]] = {True: [], False: []}
            for _ in range(args.rounds):
                for t in texts:
                    for on in (True, False):  # alternating: drift in the machine hits both alike
                        cochanges.History.open = real_open if on else (lambda *_: None)  # type: ignore[method-assign]
                        t0 = time.perf_counter()
                        answers.run(s, SearchRequest(args.target, "main", t))
                        whole[on].append(time.perf_counter() - t0)
                        past: Any = real_open(s.paths.state_dir, args.target) if on else None
                        t0 = time.perf_counter()
                        searching.search(
                            s.store, emb, catalog=args.target, label="main", text=t, limit=10, history=past
                        )
                        if past is not None:
                            past.close()
                        code[on].append(time.perf_counter() - t0)
            cochanges.History.open = real_open  # type: ignore[method-assign]
    print(f"{args.target}: {len(texts)} queries x {args.rounds} rounds, {len(indexed)} files indexed")
    for name, got in (("ops.run (whole search)", whole), ("search() alone", code)):
        print(f"  {name}: history on {_stats(got[True])}; off {_stats(got[False])}")


if __name__ == "__main__":
    main()
