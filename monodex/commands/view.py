"""Print the chunks of one indexed file (all of them reproduce the file)."""

from __future__ import annotations

import argparse

from monodex import requests as rq
from monodex.commands.common import add_json, add_target, scope
from monodex.disk import paths
from monodex.front import route
from monodex.observe import output
from monodex.schema.search import ViewAnswer


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One flag per ViewRequest field (tests/front/test_parity.py keeps them equal)."""
    add_target(parser)
    which = parser.add_mutually_exclusive_group(required=True)
    which.add_argument(
        "--id",
        dest="file_id",
        metavar="FILE_ID",
        help="FILE_ID, FILE_ID:N, FILE_ID:N-M or FILE_ID:N-end (from search)",
    )
    which.add_argument("--path", help="or the file's path, relative to the repository root")
    parser.add_argument(
        "--chunks", metavar="SEL", help="only these chunks: N, N-M or N-end (1-based; default all)"
    )
    add_json(parser)


def _render(result: ViewAnswer) -> str:
    out = [f"{result['relative_path']}  ({result['package_name']})"]
    for c in result["chunks"]:
        out.append(
            f"\n{result['file_id']}:{c['chunk_ordinal']} ({c['chunk_ordinal']}/{c['chunk_count']}) "
            f"lines {c['start_line']}-{c['end_line']}  {output.crumb(c['breadcrumb'])}"
        )
        out.extend(f"> {ln}" for ln in str(c["text"]).splitlines())
    return output.sanitize("\n".join(out))


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    target = scope(p, args)
    catalog, label = target.catalog, target.label
    if args.file_id and ":" in args.file_id:  # FILE_ID:SEL, as search prints it
        if args.chunks:
            raise rq.FieldError(
                "chunks", "{name} and a selection in --id exclude each other", advice="drop one"
            )
        try:
            request = rq.ViewRequest.from_id(catalog, label, args.file_id)
        except rq.FieldError as exc:  # the file_id and the selection were both typed as --id
            raise exc.spelled(lambda _: "--id") from None
    else:
        request = rq.ViewRequest(catalog, label, file_id=args.file_id, path=args.path, chunks=args.chunks)
    result = route.execute(p, request, quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
