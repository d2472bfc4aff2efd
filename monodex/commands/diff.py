"""What changed between two labels: files, chunks and symbols, grouped by package."""

from __future__ import annotations

import argparse
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_paths
from monodex.disk import paths
from monodex.front import render, route
from monodex.observe import output
from monodex.settings import context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per DiffRequest field (tests/front/test_parity.py keeps them equal)."""
    parser.add_argument("--catalog", help="catalog name (default: from 'monodex use')")
    parser.add_argument("--from", dest="from_label", required=True, metavar="LABEL", help="the label before")
    parser.add_argument("--to", dest="to_label", required=True, metavar="LABEL", help="the label after")
    parser.add_argument(
        "--text",
        metavar="QUERY",
        help="rank the changes by relevance to a question ('retry') and keep the best --limit files",
    )
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        help=f"at most N files (default: all; with --text {rq.DEFAULT_LIMIT})",
    )
    add_paths(parser)
    parser.add_argument(
        "--mode",
        choices=rq.MODES,
        default="hybrid",
        help="with --text: hybrid (default), dense (meaning only) or lexical (keywords only)",
    )
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    request = rq.DiffRequest(
        context.resolve_catalog(p, args.catalog, here=Path.cwd()),
        args.from_label,
        args.to_label,
        text=args.text,
        limit=args.limit,
        paths=tuple(args.paths or ()),
        mode=args.mode,
    )
    result = route.execute(p, request, quiet=args.json)
    output.emit(result, as_json=args.json, render=render.diff)
    return 0
