"""Measure search on a label with questions from its own history: recall@10, MRR@10 and nDCG@10
for every mode against a plain BM25 over the same files.

Each change that landed on the label's first-parent line (a pull request's title, else a commit's
subject) is a question whose answers are the source files it changed. Every question falls in the
`tune` or the `test` half by a hash of its id, for good: tune your crawl policy or config on one
half, and trust only what the other half confirms. `--questions FILE` scores hand-written
questions instead (JSON lines: {"query": "...", "relevant": ["path", ...], "kind": "concept"}).
`--against FILE` sets this run beside an earlier one saved with `--json --per-query`."""

from __future__ import annotations

import argparse
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_target, scope
from monodex.disk import paths
from monodex.front import eval_against, render_eval, route
from monodex.observe import output
from monodex.observe.progress import ProgressLine
from monodex.requests import questionfile
from monodex.schema.eval import ComparedAnswer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target(parser)
    parser.add_argument(
        "--mode",
        action="append",
        choices=rq.MODES,
        dest="modes",
        help="score this search mode (repeatable; default: hybrid, lexical and dense in one run); "
        "a plain BM25 over the same files is always scored next to them",
    )
    parser.add_argument(
        "--split",
        choices=rq.SPLITS,
        default="both",
        help="both (default): the tune and test halves side by side, and all; tune or test: that "
        "half only; all: every question as one set",
    )
    parser.add_argument(
        "--questions",
        type=Path,
        metavar="FILE",
        help='hand-written questions instead of the history\'s: JSON lines {"query", "relevant": '
        '[paths], "id"?, "kind"?} or a JSON document {"queries": [...]}',
    )
    parser.add_argument(
        "--limit-questions",
        type=int,
        default=rq.DEFAULT_EVAL_QUESTIONS,
        metavar="N",
        help=f"the N newest questions from history (default {rq.DEFAULT_EVAL_QUESTIONS})",
    )
    parser.add_argument(
        "--max-commits",
        type=int,
        default=rq.DEFAULT_EVAL_COMMITS,
        metavar="N",
        help=f"read at most N first-parent commits back (default {rq.DEFAULT_EVAL_COMMITS:,})",
    )
    parser.add_argument(
        "--per-query", action="store_true", help="also list each question with where its files ranked"
    )
    for name, example in (("lexical", "1.5"), ("history", "0.5")):
        parser.add_argument(
            f"--{name}-weight",
            type=float,
            metavar="W",
            help=f"rank this run with {name}_weight W (0-10, e.g. {example}) instead of the catalog's "
            f"config.json catalogs.*.search.{name}_weight: try a weight before you write it there",
        )
    parser.add_argument(
        "--against",
        type=Path,
        metavar="FILE",
        help="an earlier run's --json output: show each figure's change since it and, when it "
        "lists its questions (--per-query), the questions that got better or worse",
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    questions = questionfile.read(args.questions) if args.questions is not None else None
    earlier = eval_against.read(args.against) if args.against is not None else None
    target = scope(p, args)
    request = rq.EvalRequest(
        target.catalog,
        target.label,
        modes=tuple(args.modes or rq.MODES),
        split=args.split,
        limit_questions=args.limit_questions,
        max_commits=args.max_commits,
        questions=questions,
        per_query=args.per_query or earlier is not None,  # the questions that moved need them
        lexical_weight=args.lexical_weight,
        history_weight=args.history_weight,
    )
    progress = ProgressLine(enabled=None if not args.json else False)
    try:  # in the runner when it is up (it owns the index, its model is warm), else here
        result = route.execute(p, request, progress=progress, quiet=args.json)
    finally:
        progress.done()
    if earlier is not None:
        compared: ComparedAnswer = {
            **result,
            "against": eval_against.compare(earlier, result, args.against.name),
        }
        if not args.per_query:
            compared.pop("per_query", None)
        result = compared
    output.emit(result, as_json=args.json, render=render_eval.text)
    return 0
