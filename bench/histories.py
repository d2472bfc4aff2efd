"""How well search finds a repository's own changes, repository by repository and kind by kind
(issue 34): `monodex eval` on sixteen monorepos of the issue's four kinds (polyglot, small and
large Rush monorepos, pnpm workspaces), each question a pull-request title or commit subject and its
answers the files that change touched, ranked as of that change (only the commits before it
count), with a plain BM25 over the same files as the baseline in the same run.

Usage: .venv/bin/python bench/histories.py [--only NAME ...] [--crawl] [--json OUT] [--record]

- Each repository's installation is bench/.work/xdg-<name>, the one bench/answers.py keeps
  (`--crawl` crawls what is missing, both phases); the label is `main` at the pinned commit.
- The test halves are what a hidden set of the same kind is estimated from: `monodex eval` splits
  by a hash of each question's id, and no ranking change is tried on them. One repository does
  not predict the next of its kind (polyglot ones read from 0.47 to 0.88 R@10), so each kind's
  line is the mean over its repositories, next to their lowest and highest.
- `--record` adds each kind's line to the table under "Histories, kind by kind" in
  docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import WORK, build_id, persistent_xdg, record, table  # noqa: E402
from answers import PR_SETS, SHARED_INDEX, SUBSETS, crawl  # noqa: E402

# The pull-request sets' repositories (bench/answers.py pins them: one installation serves both),
# then more with no such set; each of the kind listed here, polyglot if not.
_KIND_OF = {
    "sparo": "small Rush",
    "tsdoc": "small Rush",
    "rushstack-websites": "small Rush",
    "rushstack-builtin": "large Rush",
    "vue": "pnpm workspace",
    "pnpm-builtin": "pnpm workspace",
}
_MORE = {
    "pyo3": ("PyO3+pyo3", "34f08c32dec2a3170fbe2e177910352489678816"),
    "wasm-bindgen": ("rustwasm+wasm-bindgen", "c35cc9369d5e0dc418986f7811a0dd702fb33ef9"),
    "tree-sitter": ("tree-sitter+tree-sitter", "74b7d0c951ebdab16a8a4d64e7cf81e56046408a"),
    "neon": ("neon-bindings+neon", "252a5b6985387955b0e8c714d35ab4d8c0538881"),
    # a third small Rush monorepo (tsdoc, the second, has a pull-request set), added after every
    # ranking change so far and never tuned on: sparo alone does not predict its kind
    "rushstack-websites": ("microsoft+rushstack-websites", "12e70a4cc92474602a2070bbe8974e197d6de07e"),
}
# name: (kind, mirror, commit). The name is the catalog and its installation's folder.
HISTORIES: dict[str, tuple[str, str, str]] = {
    **{
        name: (_KIND_OF.get(name, "polyglot"), mirror, commit)
        for name, (mirror, commit, _) in PR_SETS.items()
        # vue-older asks vue's index; rushstack-libraries asks an index of one folder of rushstack
        if name not in SHARED_INDEX and name not in SUBSETS
    },
    **{name: (_KIND_OF.get(name, "polyglot"), mirror, commit) for name, (mirror, commit) in _MORE.items()},
}
KINDS = ("polyglot", "small Rush", "large Rush", "pnpm workspace")
# What the hidden sets need of each kind (R@10, MRR@10): printed beside the estimates.
NEEDED = {
    "polyglot": (0.70, 0.50),
    "small Rush": (0.92, 0.70),
    "large Rush": (0.88, 0.68),
    "pnpm workspace": (0.92, 0.70),
}
HEADING = "### Histories, kind by kind"


def evaluate(name: str) -> dict[str, Any]:
    """`monodex eval --json` of the repository's installation: every system, both halves."""
    with persistent_xdg(name):
        run = subprocess.run(
            [sys.executable, "-m", "monodex", "eval", "--catalog", name, "--label", "main", "--json"],
            capture_output=True,
            text=True,
        )
    if run.returncode != 0:
        raise SystemExit(f"{name}: monodex eval failed ({run.returncode}): {run.stderr.strip()[-800:]}")
    answer: dict[str, Any] = json.loads(run.stdout)
    return answer


def figures(answer: dict[str, Any], system: str, half: str) -> tuple[float, float, int]:
    """(R@10, MRR@10, questions) of one system on one half ('tune', 'test' or 'all')."""
    r = answer["results"][system][half]
    return r["recall_at_10"], r["mrr_at_10"], r["questions"]


def pair(r: float, m: float) -> str:
    return f"{r:.3f} / {m:.3f}"


def repository_rows(answers: dict[str, dict[str, Any]]) -> list[list[object]]:
    rows: list[list[object]] = []
    for name, answer in answers.items():
        kind = HISTORIES[name][0]
        cells: list[object] = [kind, name, answer["questions"]["tune"], answer["questions"]["test"]]
        for half in ("tune", "test", "all"):
            r, m, _ = figures(answer, "hybrid", half)
            cells.append(pair(r, m))
        r, m, _ = figures(answer, "bm25", "all")
        cells.append(pair(r, m))
        rows.append(cells)
    return rows


def kind_rows(answers: dict[str, dict[str, Any]]) -> list[list[object]]:
    """Per kind: the mean of its repositories' test halves (with the lowest and highest R@10),
    the mean of their whole sets, BM25's, and what the hidden set needs."""
    rows: list[list[object]] = []
    for kind in KINDS:
        names = [n for n in answers if HISTORIES[n][0] == kind]
        if not names:
            continue

        def mean(system: str, half: str, names: list[str] = names) -> tuple[float, float]:
            got = [figures(answers[n], system, half) for n in names]
            return statistics.fmean(g[0] for g in got), statistics.fmean(g[1] for g in got)

        test_r = [figures(answers[n], "hybrid", "test")[0] for n in names]
        rows.append(
            [
                kind,
                len(names),
                pair(*mean("hybrid", "test")),
                f"{min(test_r):.3f}-{max(test_r):.3f}",
                pair(*mean("hybrid", "all")),
                pair(*mean("bm25", "all")),
                pair(*NEEDED[kind]),
            ]
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", nargs="*", choices=sorted(HISTORIES), help="these repositories only")
    ap.add_argument("--crawl", action="store_true", help="crawl the repositories not crawled yet")
    ap.add_argument("--json", type=Path, help="write every repository's monodex eval answer here")
    ap.add_argument("--record", action="store_true", help=f"add the kinds' lines under '{HEADING}'")
    args = ap.parse_args(argv)
    names = args.only or list(HISTORIES)
    answers: dict[str, dict[str, Any]] = {}
    for name in names:
        _, mirror, commit = HISTORIES[name]
        if not (WORK / f"xdg-{name}").exists():
            if not args.crawl:
                print(f"{name}: no installation in bench/.work (run with --crawl): left out", file=sys.stderr)
                continue
            crawl(name, {"mirror": mirror, "commit": commit, "catalog": name})
        started = time.monotonic()
        answer = evaluate(name)
        if not answer["commit"].startswith(commit[:12]):
            raise SystemExit(f"{name}: its label is at {answer['commit'][:12]}, not {commit[:12]}: crawl it again")
        answers[name] = answer
        print(f"{name}: {answer['questions']['total']} questions in {time.monotonic() - started:.0f} s", file=sys.stderr)
    if not answers:
        raise SystemExit("no repository measured: run with --crawl (MONODEX_BENCH_MIRRORS names the mirrors)")
    print(
        table(
            repository_rows(answers),
            ["kind", "repository", "tune", "test", "hybrid tune", "hybrid test", "hybrid all", "BM25 all"],
        )
    )
    print()
    kinds = kind_rows(answers)
    print("R@10 / MRR@10, as of each change; the kind's estimate is the mean of the test halves")
    print(
        table(
            kinds,
            ["kind", "repositories", "hybrid test (mean)", "test R@10 range", "hybrid all", "BM25 all", "needed"],
        )
    )
    if args.json:
        args.json.write_text(json.dumps(answers, indent=1))
    if args.record:
        stamp = time.strftime("%Y-%m-%d")
        record(HEADING, [[stamp, build_id(), *row] for row in kinds])


if __name__ == "__main__":
    main()
