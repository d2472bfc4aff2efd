"""Set or show the default catalog and label used when --catalog/--label are omitted."""

from __future__ import annotations

import argparse

from monodex.disk import paths
from monodex.errors import UsageError
from monodex.observe import output
from monodex.schema.setup import Context
from monodex.settings import config, context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", help="default catalog (must be registered)")
    parser.add_argument("--label", help="default label")
    parser.add_argument("--json", action="store_true", help="print the context as JSON")


def _render(ctx: Context) -> str:
    if not ctx["catalog"]:
        return "no default context; set one with 'monodex use --catalog C --label L'"
    return f"catalog: {ctx['catalog']}\nlabel: {ctx['label']}"


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    if args.catalog is None and args.label is None:
        ctx = context.load(p)
        shown: Context = {"catalog": ctx.catalog, "label": ctx.label}
        output.emit(shown, as_json=args.json, render=_render)
        return 0
    if args.catalog is None or args.label is None:
        raise UsageError("'monodex use' needs both --catalog and --label", "pass both flags")
    config.load(p).catalog(args.catalog)
    context.save(p, catalog=args.catalog, label=args.label)
    chosen: Context = {"catalog": args.catalog, "label": args.label}
    output.emit(chosen, as_json=args.json, render=_render)
    return 0
