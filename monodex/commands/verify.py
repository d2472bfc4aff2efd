"""Check from git alone that each label holds exactly what its commit has; --repair fixes drift."""

from __future__ import annotations

import argparse
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_label_flags, label_of
from monodex.disk import paths
from monodex.front import route
from monodex.observe import output
from monodex.schema.labels import VerifyAnswer
from monodex.settings import context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", help="only this catalog (default: every catalog)")
    add_label_flags(
        parser,
        help="only this label (its catalog from --catalog, else the repository you stand in, else "
        "'monodex use')",
    )
    parser.add_argument(
        "--repair", action="store_true", help="fix the drift found (re-stores what is broken)"
    )
    add_json(parser)


def _render(r: VerifyAnswer) -> str:
    if not r["labels"]:
        return "nothing to verify: no labels are indexed"
    lines = []
    for row in r["labels"]:
        name = f"{row['catalog']}:{row['label']}"
        if row.get("skipped"):
            lines.append(f"{name}: skipped ({row['skipped']})")
            continue
        if row.get("problem"):
            lines.append(f"{name}: NOT CHECKED: {row['problem']}; {row['hint']}")
            continue
        drift = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in row["drift"].items() if v)
        state = "ok" if row["ok"] else f"DRIFT: {drift}"
        if row.get("repaired"):
            state += "; repaired" + ("" if row["ok_after_repair"] else ", but drift remains (see the log)")
        elif not row["ok"]:
            state += " (run 'monodex verify --repair')"
        lines.append(f"{name}: {state}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    catalog, label = args.catalog, label_of(args)
    if label:  # its catalog: the flag, else where you stand, else 'monodex use'
        catalog = context.resolve_catalog(p, args.catalog, here=Path.cwd())
    # the op checks the catalog is registered (in the runner, against its config)
    job = rq.VerifyRequest(catalog, label, repair=args.repair)
    result = route.execute(p, job, quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    # Every `ok: false` left unrepaired fails (indexer.verify.failures; `ok: null` = not checkable).
    return 1 if any(r["ok"] is False and not r.get("ok_after_repair") for r in result["labels"]) else 0
