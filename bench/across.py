"""What questions across labels cost (issue 24): a search of every label at once and a diff of two
labels, against the number of labels indexed (1, 10, 100) and the size of the difference.

Usage: .venv/bin/python bench/across.py [rushstack|sparo] [--labels-max 100] [--rounds 5]

Labels `c000`, `c001`, ... are the target's commit (bench/quality.py's) and its first-parent
ancestors, so `c000` against `cNNN` differs by N commits. They are crawled phase one only (no
dense vectors; about 5 s each on rushstack once the first is stored) into an installation kept
under bench/.work/xdg-across-<target>, so a second run reuses them. Searches are lexical (the
cost of reading many labels, not of the model).

At each number of labels it times, in one run (median of --rounds):
- a search of all n labels at once (`--labels c000 --labels c001 ...`: what `--all-labels` reads
  when n labels are indexed) against `search --label c000` (the baseline: one label);
- `diff c000 c001` (one commit's difference; the same answer while the index grows) against the
  naive diff (read both labels' file lists whole and compare them, what a diff costs without the
  "in A and not in B" filter);
then, with every label built, `diff c000 cNNN` for growing N (the answer grows).
The cost should follow the answer, not the index. Run it with the machine to itself.

Phase-one labels have no dense vectors, so a search of many labels counts each label's dense
coverage for its freshness (two counts a label); on a fully hybrid index those counts are skipped,
so the many-label figures here are an upper bound.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
from _common import checkout, first_parent, persistent_xdg, table  # noqa: E402

QUERY = "retry the request with exponential backoff"


def _median_ms(fn: Callable[[], Any], rounds: int) -> tuple[float, Any]:
    """Median milliseconds of `rounds` calls after one untimed call (caches, lazy imports)."""
    samples, answer = [], fn()
    for _ in range(rounds):
        t0 = time.perf_counter()
        answer = fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e3, answer


def _commits(repo: Path, head: str, n: int) -> list[str]:
    return first_parent(repo, head, n, hint="; pass a smaller --labels-max")


def _stages(most: int) -> list[int]:
    return sorted({k for k in (1, 10, 100) if k <= most} | {most})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("target", nargs="?", default="rushstack", choices=sorted(quality.TARGETS))
    ap.add_argument("--labels-max", type=int, default=100, help="labels to build at most (default 100)")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    mirror, commit, part = quality.TARGETS[args.target]
    repo = checkout(mirror, rev=commit)
    commits = _commits(repo, commit, args.labels_max)
    with persistent_xdg(f"across-{args.target}"):
        from monodex.indexer.ops import answers
        from monodex.indexer.points import filters, labelmeta, membership
        from monodex.indexer.session import Session

        from monodex import requests as rq
        from monodex.disk import paths
        from monodex.main import main as cli
        from monodex.settings import config

        p = paths.resolve()
        if args.target not in (config.load(p).catalogs if p.config_file.exists() else {}):
            if part:
                p.config_dir.mkdir(parents=True, exist_ok=True)
                import json

                p.user_crawl_file.write_text(json.dumps(part, indent=2))
            assert cli(["catalog", "add", args.target, str(repo)]) == 0
        cat = args.target

        def label(i: int) -> str:
            return f"c{i:03d}"

        with Session(config.load(p), p) as s:

            def build(upto: int) -> None:
                for i in range(upto):
                    state = labelmeta.read(s.store, f"{cat}:{label(i)}") if s.store.info() else None
                    if state and state.crawl_complete and state.commit_oid == commits[i]:
                        continue
                    t0 = time.perf_counter()
                    answers.run(s, rq.CrawlRequest(cat, label(i), commit=commits[i], wait_dense=False))
                    print(
                        f"built {label(i)} at {commits[i][:10]} in {time.perf_counter() - t0:.1f} s",
                        flush=True,
                    )

            def search(**kw: Any) -> Any:
                return answers.run(s, rq.SearchRequest(cat, kw.pop("label", ""), QUERY, mode="lexical", **kw))

            def diff(a: int, b: int) -> Any:
                return answers.run(s, rq.DiffRequest(cat, label(a), label(b)))

            def naive(a: int, b: int) -> int:
                def files(i: int) -> set[str]:
                    flt = filters.label_chunks(membership.of(s.store, f"{cat}:{label(i)}"))
                    return {
                        str(r.payload["file_id"])
                        for r in s.store.scroll(flt, payload_keys=("file_id", "chunk_ordinal"))
                        if r.payload.get("chunk_ordinal") == 1
                    }

                return len(files(a) ^ files(b))

            rows = []
            for n in _stages(args.labels_max):
                build(n)
                chunks = s.store.count(filters.chunks())
                one, _ = _median_ms(lambda: search(label=label(0)), args.rounds)
                # the first n labels by name: a previous run may have left more in the index
                names = tuple(label(i) for i in range(n))
                every, found = _median_ms(lambda: search(labels=names), args.rounds)  # noqa: B023
                held = max((len(r["labels"]) for r in found["results"]), default=0)
                row: list[object] = [n, chunks, f"{one:.1f}", f"{every:.1f}", held]
                if n > 1:
                    d, answer = _median_ms(lambda: diff(0, 1), args.rounds)
                    nv, _ = _median_ms(lambda: naive(0, 1), args.rounds)
                    row += [len(answer["files"]), f"{d:.1f}", f"{nv:.1f}"]
                else:
                    row += ["-", "-", "-"]
                rows.append(row)
            print(f"\n{args.target}: cost against the number of labels (lexical, median of {args.rounds})")
            head = [
                "labels",
                "chunks stored",
                "search 1 label ms",
                "search all labels ms",
                "most labels on a hit",
            ]
            print(table(rows, [*head, "diff c000 c001 files", "diff ms", "naive diff ms"]))

            sizes = sorted({k for k in (1, 2, 5, 10, 20, 50, 99) if k < len(commits)})
            rows = []
            for k in sizes:
                d, answer = _median_ms(lambda k=k: diff(0, k), args.rounds)  # type: ignore[misc]
                ranked, _ = _median_ms(
                    lambda k=k: answers.run(
                        s, rq.DiffRequest(cat, label(0), label(k), text=QUERY, mode="lexical")
                    ),  # type: ignore[misc]
                    args.rounds,
                )
                sm = answer["summary"]
                files = sm["files_added"] + sm["files_removed"] + sm["files_changed"]
                rows.append(
                    [
                        f"c000..{label(k)}",
                        files,
                        sm["chunks_added"] + sm["chunks_removed"],
                        f"{d:.1f}",
                        f"{ranked:.1f}",
                    ]
                )
            print(
                f"\n{args.target}: diff cost against the size of the difference ({len(commits)} labels indexed)"
            )
            print(table(rows, ["diff", "files", "chunks", "diff ms", "diff --text ms"]))


if __name__ == "__main__":
    main()
