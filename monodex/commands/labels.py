"""List indexed labels: commit, kind, completeness, chunk count."""

from __future__ import annotations

import argparse
import time
from typing import Any

from monodex import config, dispatch, output, paths
from monodex.commands.common import add_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", help="only this catalog")
    add_json(parser)


def _render(result: dict[str, Any]) -> str:
    rows = result["labels"]
    if not rows:
        return "no labels yet; index one with 'monodex crawl --catalog C --label L --commit HEAD'"
    lines = []
    for r in rows:
        state = "complete" if r["crawl_complete"] else "INCOMPLETE (re-run the crawl)"
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["updated_at_unix_secs"]))
        commit = r["commit_oid"][:12] or "(working dir)"
        lines.append(f"{r['catalog']}:{r['label']}\t{commit}\t{r['chunks']} chunks\t{state}\t{when}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    if args.catalog:
        cfg.catalog(args.catalog)
    result = dispatch.execute(p, "labels", {"catalog": args.catalog}, quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
