"""Print the chunks of one indexed file (all of them reproduce the file)."""

from __future__ import annotations

import argparse
from typing import Any

from monodex import config, context, dispatch, output, paths
from monodex.commands.common import add_json, add_target, label_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target(parser)
    parser.add_argument(
        "--id", required=True, help="FILE_ID, FILE_ID:N, FILE_ID:N-M or FILE_ID:N-end (from search)"
    )
    add_json(parser)


def _render(result: dict[str, Any]) -> str:
    out = [f"{result['relative_path']}  ({result['package_name']})"]
    for c in result["chunks"]:
        out.append(
            f"\n{result['file_id']}:{c['chunk_ordinal']} ({c['chunk_ordinal']}/{c['chunk_count']}) "
            f"lines {c['start_line']}-{c['end_line']}  {c['breadcrumb']}"
        )
        out.extend(f"> {ln}" for ln in str(c["text"]).splitlines())
    return output.sanitize("\n".join(out))


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    catalog, label = context.resolve(p, args.catalog, label_of(args))
    cfg.catalog(catalog)
    result = dispatch.execute(p, "view", {"catalog": catalog, "label": label, "id": args.id}, quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
