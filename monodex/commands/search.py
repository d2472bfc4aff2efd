"""Search one label with a natural-language question."""

from __future__ import annotations

import argparse
from typing import Any

from monodex import config, context, dispatch, output, paths
from monodex.commands.common import add_json, add_target
from monodex.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target(parser)
    parser.add_argument("--text", required=True, help="what you are looking for, in plain words")
    parser.add_argument("--limit", type=int, default=10, help="number of results (default 10)")
    add_json(parser)


def _render(result: dict[str, Any]) -> str:
    if not result["results"]:
        return "No results."
    blocks = []
    for r in result["results"]:
        head = f"{r['relative_path']}:{r['start_line']}-{r['end_line']}  {r['score']:.3f}  {r['breadcrumb']}"
        head += f"\n  id {r['file_id']}:{r['chunk_ordinal']} ({r['chunk_ordinal']}/{r['chunk_count']})"
        lines = [ln for ln in str(r["text"]).splitlines() if ln.strip()][:3]
        blocks.append(output.sanitize(head + "".join(f"\n  > {ln}" for ln in lines)))
    return "\n\n".join(blocks)


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    catalog, label = context.resolve(p, args.catalog, args.label)
    cfg.catalog(catalog)
    if not args.text.strip():
        raise UsageError("the search text is empty", "pass --text 'what you are looking for'")
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}", "pass --limit 10")
    query = {"catalog": catalog, "label": label, "text": args.text, "limit": args.limit}
    result = dispatch.execute(p, "search", query, quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
