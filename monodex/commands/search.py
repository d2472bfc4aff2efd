"""Search one label with a natural-language question."""

from __future__ import annotations

import argparse
from typing import Any

from monodex import config, context, output, paths
from monodex.commands.common import add_json, add_target
from monodex.indexer import search as searching
from monodex.indexer import session


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
    store = session.store(cfg, p)
    try:
        searching.require_label(store, catalog, label)
        results = searching.search(
            store, session.engine(cfg), catalog=catalog, label=label, text=args.text, limit=args.limit
        )
    finally:
        store.close()
    output.emit({"results": results}, as_json=args.json, render=_render)
    return 0
