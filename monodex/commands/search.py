"""Search one label, or several at once, with a natural-language question."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_paths, add_target, label_of, scope
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.front import render, route
from monodex.observe import output
from monodex.settings import context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per SearchRequest field (tests/front/test_parity.py keeps them equal)."""
    add_target(parser, worktree=True)
    parser.add_argument("question", nargs="?", metavar="TEXT", help="the same as --text")
    parser.add_argument("--text", help="what you are looking for, in plain words (or give it without --text)")
    parser.add_argument(
        "--limit", type=int, default=rq.DEFAULT_LIMIT, help=f"number of results (default {rq.DEFAULT_LIMIT})"
    )
    add_paths(parser)
    parser.add_argument(
        "--package",
        help="only files of this package (its package.json name; an unknown one lists the closest)",
    )
    parser.add_argument("--kind", choices=rq.KINDS, help="only chunks of this kind")
    parser.add_argument(
        "--lang",
        help=f"only files in this language: {', '.join(rq.LANGUAGES)} (or a file suffix: rs, py, ...; "
        "a language the label has no files of is an error that lists the ones it has)",
    )
    parser.add_argument(
        "--mode",
        choices=rq.MODES,
        default="hybrid",
        help="hybrid (default): meaning and keywords fused by Qdrant (RRF); dense: meaning only; "
        "lexical: code-aware keywords only",
    )
    parser.add_argument(
        "--per-file", type=int, default=1, metavar="N", help="at most N hits from one file (default 1)"
    )
    parser.add_argument(
        "--include-tests",
        action="store_true",
        help="rank tests, snapshots, API reports, change files and changelogs like source "
        "(by default they come after source hits of similar rank)",
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="show how the query was read and each hit's dense rank, lexical rank, fused score and signals",
    )
    parser.add_argument(
        "--fresh",
        nargs="?",
        action=_FreshSeconds,
        const=rq.DEFAULT_FRESH_SECONDS,
        metavar="SECONDS",
        help="first wait (at most SECONDS, default %(const)s) until the label reflects its branch's "
        "current commit, asking the runner to refresh it if needed (a word after it is the question)",
    )
    parser.add_argument(
        "--wait-dense",
        action="store_true",
        help="with --fresh: also wait (same bound) until every chunk has its dense vector (full "
        "hybrid); without it the wait ends once the label is searchable (lexical for new chunks)",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="pack the results into N tokens (the model's tokenizer): adjacent hits of a file are "
        "merged, what does not fit is cut at a line or listed as left out; prints whole blocks",
    )
    parser.add_argument(
        "--committed",
        action="store_true",
        help="search the branch as committed: no uncommitted files of the worktree",
    )
    parser.add_argument(
        "--as-indexed",
        action="store_true",
        help="answer from the label as indexed even when it is not at the commit checked out where "
        "you stand (by default such a label is caught up first, within the --fresh bound)",
    )
    parser.add_argument(
        "--labels",
        action="append",
        metavar="GLOB",
        help="search every label of the catalog matching GLOB at once ('release/*'; * and ? match "
        "any characters); each hit lists the labels holding it; repeatable",
    )
    parser.add_argument(
        "--all-labels",
        action="store_true",
        help="search every label of the catalog at once; each hit lists the labels holding it and "
        "those holding another version of its file",
    )
    add_json(parser)


_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class _FreshSeconds(argparse.Action):
    """--fresh [SECONDS] takes the next word only when it is a number: `search --fresh "timing"`
    asks about timing (argparse's float type said "invalid float value: 'timing'", issue 35)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option: str | None = None,
    ) -> None:
        word = values if isinstance(values, str) else None
        if word is not None and _NUMBER.match(word):
            setattr(namespace, self.dest, float(word))
            return
        setattr(namespace, self.dest, self.const)
        # kept apart: the TEXT positional's default would overwrite a question set here
        namespace.fresh_question = word


def _text(args: argparse.Namespace) -> str:
    given = [q for q in (args.question, getattr(args, "fresh_question", None), args.text) if q is not None]
    if len(set(given)) > 1:
        raise UsageError(
            f"the question was given twice: {' and '.join(repr(q) for q in given)}",
            "give it once, in quotes (--fresh takes a number of seconds, or nothing)",
        )
    text: str | None = given[0] if given else None
    if text is None:
        raise UsageError(
            "no question given", 'put it in quotes after search: monodex search "where is X parsed"'
        )
    return text


def run(args: argparse.Namespace) -> int:
    text = _text(args)
    p = paths.resolve()
    if args.labels or args.all_labels:
        if label_of(args):
            raise UsageError(
                "--label names one label; --labels and --all-labels name several", "drop --label"
            )
        catalog, label = context.resolve_catalog(p, args.catalog, here=Path.cwd()), ""
        worktree = None
    else:
        target = scope(p, args)
        catalog, label, worktree = target.catalog, target.label, target.worktree
    request = rq.SearchRequest(
        catalog,
        label,
        text,
        limit=args.limit,
        paths=tuple(args.paths or ()),
        package=args.package,
        kind=args.kind,
        lang=args.lang,
        mode=args.mode,
        per_file=args.per_file,
        include_tests=args.include_tests,
        explain=args.explain,
        fresh=args.fresh,
        max_tokens=args.max_tokens,
        wait_dense=args.wait_dense,
        worktree=worktree,
        committed=args.committed,
        as_indexed=args.as_indexed,
        labels=tuple(args.labels or ()),
        all_labels=args.all_labels,
    )
    result = route.execute(p, request, quiet=args.json)
    output.emit(result, as_json=args.json, render=render.search)
    return 0
