"""Delete chunks no label uses and leftovers of interrupted crawls; with --old-models, the
collections of models used before the configured one."""

from __future__ import annotations

import argparse
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json
from monodex.disk import paths
from monodex.front import route
from monodex.observe import output
from monodex.schema.labels import GcAnswer, OldModelsAnswer
from monodex.settings import context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--catalog", help="catalog to clean (default: the repository you stand in, else 'monodex use')"
    )
    parser.add_argument("--dry-run", action="store_true", help="report what would go; delete nothing")
    parser.add_argument(
        "--compact",
        action="store_true",
        help="then compact the index as the runner does nightly (merge segments, build the vector "
        "index): later commands open it faster; seconds to minutes, the index is busy meanwhile",
    )
    parser.add_argument(
        "--old-models",
        action="store_true",
        help="list the collections of models used before the configured one, with their size, and "
        "delete those that answer no label any more (with --dry-run: only list them)",
    )
    add_json(parser)


def _render(r: GcAnswer) -> str:
    verb = "would delete" if r["dry_run"] else "deleted"
    text = (
        f"{verb} {r['deleted_chunks']} chunks ({r['text_bytes']} bytes of text): "
        f"{r['unlabeled_chunks']} with no label, {r['incomplete_chunks']} from "
        f"{r['incomplete_files']} incompletely stored files"
    )
    if r["skipped_incomplete_because_crawl_in_progress"]:
        text += "\nincomplete files were kept: a crawl of this catalog is in progress"
    if "compacted" in r:
        if r["compacted"] is None:
            text += "\nindex not compacted here: the Qdrant server compacts its segments by itself"
        else:
            state = "compacted" if r["compacted"] else "already compact"
            text += f"\nindex {state} in {r['compact_seconds']:.1f} s"
    return text


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _render_old(r: OldModelsAnswer) -> str:
    if not r["collections"]:
        return "no collections of other models"
    lines = []
    for c in r["collections"]:
        head = f"{c['collection']} ({c['embedder_id']}): {_mb(c['bytes'])}, {len(c['labels'])} labels"
        if c["answering"]:
            tail = f"kept: answers {', '.join(c['answering'])} until the new model's vectors are complete"
        else:
            tail = "would be deleted" if r["dry_run"] else "deleted"
        lines.append(f"{head}: {tail}")
    if r["collection"]:
        lines.append(f"qdrant.collection in config.json now names {r['collection']} (the configured model's)")
    return "\n".join(lines)


def _old_models(p: paths.Paths, args: argparse.Namespace) -> int:
    result = route.execute(p, rq.OldModelsRequest(dry_run=args.dry_run), quiet=args.json)
    output.emit(result, as_json=args.json, render=_render_old)
    return 0


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    if args.old_models:
        return _old_models(p, args)
    catalog = context.resolve_catalog(p, args.catalog, here=Path.cwd())
    # the index decides whether the catalog is known: it may hold one no longer registered
    result = route.execute(
        p, rq.GcRequest(catalog, dry_run=args.dry_run, compact=args.compact), quiet=args.json
    )
    output.emit(result, as_json=args.json, render=_render)
    return 0
