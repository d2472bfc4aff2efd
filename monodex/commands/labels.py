"""List indexed labels: commit, kind, completeness, chunk count."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_label_flags, label_of
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.front import render, route
from monodex.observe import output
from monodex.schema.labels import LabelRow, LabelsAnswer, RemovedLabel
from monodex.settings import context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        nargs="?",
        choices=("list", "rm"),
        default="list",
        help="list (default) or rm: remove a label (its chunks go when no other label uses them)",
    )
    parser.add_argument(
        "--catalog",
        help="only this catalog (rm, --containing: default the repository you stand in, else 'use')",
    )
    add_label_flags(
        parser,
        help="rm: the label to remove; --containing PATH: whose version of PATH is meant (default: "
        "the label of the branch checked out where you stand, when it holds one)",
    )
    parser.add_argument(
        "--containing",
        metavar="FILE_ID|PATH[:LINE]",
        help="which labels hold this file version (FILE_ID, or PATH as --label has it), or this chunk "
        "(FILE_ID:N, PATH:LINE), and which hold another version of the path",
    )
    parser.add_argument(
        "--worktree",
        metavar="PATH",
        help="--containing PATH: answer as if standing in this checkout (default: the current "
        "directory): without --label, the version its branch's label holds is meant",
    )
    add_json(parser)


def _render(result: LabelsAnswer) -> str:
    rows = result["labels"]
    if not rows:
        return "no labels yet; index one with 'monodex crawl --catalog C --label L --commit HEAD'"
    lines = []
    for r in rows:
        state = "complete" if r["crawl_complete"] else _incomplete(r)
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r["updated_at_unix_secs"]))
        commit = "(working dir)" if r["source_kind"] == "working-directory" else r["commit_oid"][:12]
        line = f"{r['catalog']}:{r['label']}\t{commit}\t{r['chunks']} chunks\t{state}\t{when}"
        if r.get("branch") and r["branch"] != r["label"]:  # which branch holds a label named otherwise
            line += f"\tbranch {r['branch']}"
        lines.append(line)
    for o in result.get("overlays", ()):
        lines.append(
            f"  uncommitted files of {o['worktree']} over {o['catalog']}:{o['label']}: "
            f"{o['files']} files, {o['paths']} changed paths, {o['chunks']} chunks"
        )
    return "\n".join(lines)


def _incomplete(r: LabelRow) -> str:
    if r["source_kind"] == "working-directory":
        return "incomplete crawl of the working dir (re-run 'monodex crawl --working-dir')"
    target = r.get("target_commit_oid") or r["commit_oid"]
    return f"incomplete crawl of {target[:12]} (re-run the crawl, or 'monodex verify --repair')"


def _files(n: int) -> str:
    return "1 file" if n == 1 else f"{n} files"


def _render_rm(r: RemovedLabel) -> str:
    kept = r.get("chunks_kept", r["chunks_unlabelled"])  # a runner of before issue 35 lacks it
    return (
        f"removed {r['catalog']}:{r['label']}: the {_files(r['files'])} it held left it; "
        f"{r['chunks_deleted']} chunks deleted (no other label used them), {kept} kept for other labels"
    )


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    label = label_of(args)
    if args.action == "rm":
        if not label:
            raise UsageError(
                "labels rm needs --label (or --branch): what it deletes is named, never defaulted",
                "pass --label L (see 'monodex labels'), or --branch HEAD for the one checked out here",
            )
        catalog = context.resolve_catalog(p, args.catalog, here=Path.cwd())
        # no config check: the labels of a catalog removed from config.json can be removed too
        job = rq.RemoveLabelRequest(catalog, label)
        output.emit(route.execute(p, job, quiet=args.json), as_json=args.json, render=_render_rm)
        return 0
    if args.containing:  # whose version of PATH: --label, else the one checked out where you stand
        catalog, stand = context.catalog_here(p, args.catalog, here=Path.cwd(), worktree=args.worktree)
        top = str(stand.worktree) if stand is not None else None
        where = rq.ContainingRequest(catalog, args.containing, label, worktree=top)
        output.emit(route.execute(p, where, quiet=args.json), as_json=args.json, render=render.containing)
        return 0
    if label:
        raise UsageError(
            "--label is only for 'labels rm' and 'labels --containing'",
            "drop --label, or use 'monodex labels rm'",
        )
    # no config check here: the index knows catalogs no longer in config.json (the op decides)
    result = route.execute(p, rq.LabelsRequest(args.catalog), quiet=args.json)
    output.emit(result, as_json=args.json, render=_render)
    return 0
