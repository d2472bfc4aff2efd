"""Delete chunks no label uses and leftovers of interrupted crawls."""

from __future__ import annotations

import argparse
from typing import Any

from monodex import context, output, paths
from monodex import requests as rq
from monodex.commands.common import add_json
from monodex.front import route


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", help="catalog to clean (default: from 'monodex use')")
    parser.add_argument("--dry-run", action="store_true", help="report what would go; delete nothing")
    add_json(parser)


def _render(r: dict[str, Any]) -> str:
    verb = "would delete" if r["dry_run"] else "deleted"
    text = (
        f"{verb} {r['deleted_chunks']} chunks ({r['text_bytes']} bytes of text): "
        f"{r['unlabeled_chunks']} with no label, {r['incomplete_chunks']} from "
        f"{r['incomplete_files']} incompletely stored files"
    )
    if r["skipped_incomplete_because_crawl_in_progress"]:
        text += "\nincomplete files were kept: a crawl of this catalog is in progress"
    return text


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    catalog = args.catalog or context.load(p).catalog
    if not catalog:
        catalog, _ = context.resolve(p, None, None)
    # the index decides whether the catalog is known: it may hold one no longer registered
    result = route.execute(p, rq.GcRequest(catalog, dry_run=args.dry_run), quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
