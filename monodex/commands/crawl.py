"""Index a commit (or the working tree) of a catalog into a label."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
from collections import Counter
from pathlib import Path

from monodex import requests as rq
from monodex.commands.common import add_json, add_target, scope
from monodex.disk import paths
from monodex.disk.paths import Paths
from monodex.errors import UsageError
from monodex.front import route
from monodex.labels import standing
from monodex.observe import output
from monodex.observe.progress import ProgressLine
from monodex.schema.crawl import CrawlAnswer, DryRunAnswer, PlannedFile
from monodex.settings import config, context


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target(parser)
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--commit", metavar="REV", help="HEAD, a branch, a tag or a (short) SHA (default: HEAD)"
    )
    source.add_argument(
        "--working-dir", action="store_true", help="index the files on disk instead of a commit"
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="print what would be indexed and skipped; write nothing"
    )
    parser.add_argument(
        "--files",
        action="store_true",
        help="with --dry-run: list each file with its strategy and each skipped file with its reason "
        "(also with -v; --json always carries the lists)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="re-walk the whole tree even when an incremental refresh is possible",
    )
    parser.add_argument(
        "--wait-dense",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="return only once every chunk has its dense vector (phase two); the default waits when "
        "no runner is up and returns as soon as the label is searchable when the runner fills them",
    )
    parser.add_argument(
        "--no-compact",
        dest="compact",
        action="store_false",
        help="start no compaction of the index after the crawl, even when what was written since the "
        "last compaction has outgrown a quarter of it (no runner only: the runner never compacts a "
        "crawl; the compaction runs in another process, nothing waits for it)",
    )
    add_json(parser)


# A folder beside the repository's own code (examples, a bundled copy, documentation) holding
# this share of the chunks or more is named: JetBrains/Exposed's committed API site was 89 % of
# what its crawl planned, and nothing else said so before the embedding. The project's own sources
# are never named (hono's `src/` holds 89 % of its chunks: nothing to leave out), nor their tests:
# a change touches them with the code they test (15 of the 31 bench repositories keep a quarter
# of their chunks or more in tests).
HEAVY_SHARE = 0.25
PROSE_SHARE = 0.5  # a folder whose chunks are this share pages for people or more is documentation
# a secondary role (the ranking's, indexer/rank/ranking.py) as the dry run says it
_SAID = {
    "agent": "instructions for coding agents",
    "snapshot": "test snapshots",
    "example": "examples",
    "copy": "a copy of other code",
    "benchmark": "benchmarks",
    "test-output": "tests' expected output",
    "api-report": "API reports",
    "change-file": "change files",
}


def heaviest_folder(files: list[PlannedFile]) -> tuple[str, int, str] | None:
    """(folder, chunks, what it holds) for the folder beside the repository's own code (the
    outermost such on each path) with the most planned chunks, ties by name, when it holds
    HEAVY_SHARE of them or more; None otherwise."""
    from monodex.indexer.rank.kinds import is_prose  # the ranking's reading of paths: regexes

    sizes: Counter[str] = Counter()
    prose: Counter[str] = Counter()
    for f in files:
        parts, page = f["path"].split("/")[:-1], is_prose(f["path"], None)
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth]) + "/"
            sizes[folder] += f["chunks"]
            prose[folder] += f["chunks"] if page else 0
    kinds = {folder: _folder_kind(folder, prose[folder] / n) for folder, n in sizes.items() if n}
    outermost = [
        (folder, sizes[folder], kind)
        for folder, kind in kinds.items()
        if kind is not None and not any(kinds.get(a) for a in _ancestors(folder))
    ]
    best = min(outermost, key=lambda h: (-h[1], h[0]), default=None)
    total = sum(f["chunks"] for f in files)
    return best if best is not None and best[1] >= HEAVY_SHARE * total else None


def _folder_kind(folder: str, prose_share: float) -> str | None:
    """What `folder` (ending in `/`) holds when it is neither the repository's code nor its
    tests, or None. `prose_share`: the share of its chunks that are pages for people."""
    from monodex.indexer.rank.kinds import is_site
    from monodex.indexer.rank.ranking import SOURCE, role_of

    role = role_of(folder + "-")  # a name inside it: role_of's patterns name folders as `tests/`
    if role == "test":
        return None
    if role != SOURCE:
        return _SAID.get(role, role)
    return "documentation" if is_site(folder) or prose_share >= PROSE_SHARE else None


def _ancestors(folder: str) -> list[str]:
    parts = folder.rstrip("/").split("/")
    return ["/".join(parts[:i]) + "/" for i in range(1, len(parts))]


def _strategy(f: PlannedFile) -> str:
    """`script (python)` for a script, read by its `#!` line, `header (cpp)` for a C++ header; the
    strategy's name for the rest."""
    return f"{f['strategy']} ({f['chunked_as']})" if "chunked_as" in f else f["strategy"]


def _render_dry_run(r: DryRunAnswer, *, files: bool = False) -> str:
    lines = [f"{r['files_to_index']} files to index, {r['chunks']} chunks"]
    if r["policy"]["source"] != "built-in" or r["policy"]["roots"]:
        roots = r["policy"]["roots"]
        lines.append(f"  policy {r['policy']['source']}" + (f", roots {' '.join(roots)}" if roots else ""))
    heavy = heaviest_folder(r["files"])
    if heavy is not None:
        folder, n, kind = heavy
        advice = {"version": 1, "extends": "built-in", "patternsToExclude": [folder]}
        lines.append(
            f"  {folder} holds {n} of the chunks ({n / r['chunks']:.0%}), {kind}: a monodex-crawl.json of "
            f"{json.dumps(advice)} leaves it out (docs/crawl.md)"
        )
    lines += [f"  {name}: {n} files" for name, n in sorted(r["by_strategy"].items())]
    lines += [f"  skipped ({reason}): {n}" for reason, n in sorted(r["skipped"].items())]
    if "unregistered" in r:
        top = r["unregistered"]
        name = re.sub(r"[^a-z0-9]+", "-", Path(top).name.lower()).strip("-")[:64] or "repo"
        lines.append(f"(not registered yet: 'monodex catalog add {name} {top}' to index it)")
    if files:
        lines += ["", *(f"  {_strategy(f)}  {f['path']}  ({f['chunks']} chunks)" for f in r["files"])]
        lines += [f"  skipped ({s['reason']})  {s['path']}" for s in r["skipped_files"]]
    return output.sanitize("\n".join(lines))


def _render(r: CrawlAnswer) -> str:
    commit = r["commit"][:12] or "working dir"
    text = (
        f"{r['catalog']}:{r['label']} at {commit} ({r['mode']}): {r['files_total']} files "
        f"({_files(r)}), {r['files_removed']} removed, "
        f"searchable after {r.get('searchable_seconds', r['seconds']):.1f}s"
    )
    pending = r.get("chunks_pending", 0)
    if pending:
        text += (
            f"; {pending} chunks wait for their dense vector (found by their words until then): "
            "the runner adds them, or run the same crawl with --wait-dense"
        )
    else:
        text += f", fully hybrid after {r['seconds']:.1f}s"
    if "compacted" in r:
        c = r["compacted"]
        if "skipped" in c:  # the label is done; only the compaction waits for the next crawl
            text += f"\nindex not compacted: {c['skipped']}"
    if "compaction" in r:
        c = r["compaction"]
        text += (
            f"\ncompacting the index in the background (pid {c['pid']}, {c['written']} points written "
            "since the previous compaction): nothing waits for it"
        )
    return text


def _files(r: CrawlAnswer) -> str:
    """What became of the label's files: each counted once, as unchanged, reused or stored."""
    parts = [f"{r['files_unchanged']} unchanged"] if r.get("files_unchanged") else []
    parts.append(f"{r['files_reused']} reused")
    parts.append(f"{r['files_embedded']} stored: {r['chunks_embedded']} chunks embedded")
    return ", ".join(parts)


def _target(p: Paths, args: argparse.Namespace) -> tuple[str, str, str | None]:
    """(catalog, label, checkout to read). Where you stand picks the catalog and the checkout
    (its HEAD for --commit HEAD, its files for --working-dir). A working-dir crawl never takes
    its label from the branch checked out there: --label, else 'monodex use'."""
    if args.working_dir and not (args.label or args.branch):
        label = context.load(p).label
        if not label:
            raise UsageError(
                "--working-dir needs a label for the files on disk (never the branch's own label)",
                "pass --label NAME, e.g. --label wip",
            )
        args = argparse.Namespace(**{**vars(args), "label": label})
    target = scope(p, args)
    return target.catalog, target.label, _checkout(p, target)


def _checkout(p: Paths, target: context.Scope) -> str | None:
    """The top folder of the checkout of the target's catalog the current directory is in."""
    if target.standing is not None:
        return target.worktree
    catalogs = {name: c.path for name, c in config.load(p).catalogs.items()}
    found = standing.find(Path.cwd(), catalogs)
    return str(found.worktree) if found is not None and found.catalog == target.catalog else None


def _unregistered(p: Paths, args: argparse.Namespace) -> tuple[config.Catalog, str] | None:
    """A dry run standing in a repository nobody registered yet, with no default catalog either:
    what would monodex index here? (A catalog named and unknown stays an error.)"""
    if args.catalog is not None:
        return None
    top = standing.toplevel(Path.cwd())
    if top is None:
        return None
    known = {c.path.resolve() for c in config.load(p).catalogs.values()}
    if top.resolve() in known:
        return None
    return config.Catalog(name=top.name, path=top), args.label or "main"


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    if args.files and not args.dry_run:
        raise UsageError("--files lists what a dry run would index", "add --dry-run")
    if not args.working_dir and args.commit is None:
        args.commit = "HEAD"  # the checkout's commit, into its branch's label (where you stand)
    unregistered = None
    try:
        catalog, label, worktree = _target(p, args)
    except rq.FieldError as exc:  # no catalog: standing in a repository not registered yet?
        unregistered = _unregistered(p, args) if args.dry_run and exc.field == "catalog" else None
        if unregistered is None:
            raise
    if args.dry_run:  # reads git only, never the index: no need for the runner
        from monodex.indexer.write import crawlrun  # heavy: dulwich, tree-sitter

        if unregistered is not None:
            entry, label = unregistered
        else:
            entry = cfg.catalog(catalog)
            if worktree is not None:  # read that checkout: its HEAD, its files
                entry = dataclasses.replace(entry, path=Path(worktree))
        request = crawlrun.Request(entry, label, commit=args.commit, working_dir=args.working_dir)
        planned = crawlrun.dry_run(cfg, p, request)
        if unregistered is not None:
            planned["unregistered"] = str(entry.path)
        listing = bool(args.files or getattr(args, "verbose", False))
        output.emit(planned, as_json=args.json, render=lambda r: _render_dry_run(r, files=listing))
        return 0
    else:
        # the op checks the catalog is registered, with the config of whoever runs it
        job = rq.CrawlRequest(
            catalog,
            label,
            commit=args.commit,
            working_dir=args.working_dir,
            full=args.full,
            wait_dense=args.wait_dense,
            worktree=worktree,
            compact=args.compact,
        )
        progress = ProgressLine(enabled=None if not args.json else False)
        try:  # handed to the runner when it is up (it owns the shard), else run here
            result = route.execute(p, job, progress=progress, quiet=args.json)
        finally:
            progress.done()
    output.emit(result, as_json=args.json, render=_render)
    return 0
