"""Register, list and remove catalogs (repositories) and the branches their hooks track."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from monodex import names
from monodex import requests as rq
from monodex.commands.common import crawl_command
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.front import route
from monodex.labels import known_labels
from monodex.observe import output
from monodex.runner import runnerpid
from monodex.schema.setup import CatalogAdded, CatalogList, CatalogRemoved, CatalogRow, CatalogTracked
from monodex.settings import config

ALL_LOCAL = "*"  # fnmatch's * also matches '/': every local branch


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="register a git repository as a catalog")
    add.add_argument("name", help="catalog name, e.g. 'rushstack'")
    add.add_argument("path", help="path of the repository's work tree")
    add.add_argument("--force", action="store_true", help="replace an existing catalog's path")
    lst = sub.add_parser("list", help="list registered catalogs and the branch globs they track")
    rm = sub.add_parser("rm", help="unregister a catalog; --purge also removes its labels from the index")
    rm.add_argument("name", help="catalog name")
    rm.add_argument(
        "--purge",
        action="store_true",
        help="remove every label of the catalog and the chunks only they used (works after a plain rm too)",
    )
    for verb, text in (("track", "refresh branches matching GLOB"), ("untrack", "stop tracking GLOB")):
        cmd = sub.add_parser(verb, help=f"hooks {text} (besides the default branch and indexed labels)")
        cmd.add_argument("name", help="catalog name")
        cmd.add_argument("glob", nargs="?", help="a branch-name glob, e.g. 'feature/*' (* also matches '/')")
        cmd.add_argument(
            "--all-local", action="store_true", help="every local branch (the glob '*'), instead of GLOB"
        )
        cmd.add_argument("--json", action="store_true", help="print the result as JSON")
    for cmd in (add, lst, rm):
        cmd.add_argument("--json", action="store_true", help="print the result as JSON")


def _as_dict(c: config.Catalog) -> CatalogRow:
    return {"name": c.name, "type": c.type, "path": str(c.path), "track": list(c.track)}


def _check_repo(path: Path) -> Path:
    resolved = path.expanduser().resolve()
    if not resolved.is_dir():
        raise UsageError(f"{path} is not a directory", "pass the path of a git work tree")
    if not (resolved / ".git").exists():
        raise UsageError(
            f"{resolved} is not the top of a git work tree (no .git)",
            "pass the repository root; bare repositories are not supported",
        )
    return resolved


def _check_glob(glob: str) -> str:
    # fnmatch reads an unclosed '[' as a literal: say so rather than track nothing forever.
    opened = glob.rfind("[")
    if not glob.strip() or (opened >= 0 and "]" not in glob[opened + 2 :]):
        raise UsageError(
            f"invalid branch glob {glob!r}", "use *, ? and closed [...] classes, e.g. 'feature/*'"
        )
    return glob


def _track(p: paths.Paths, cfg: config.Config, args: argparse.Namespace) -> CatalogTracked:
    cat = cfg.catalog(args.name)
    if bool(args.all_local) == (args.glob is not None):
        raise UsageError(
            f"'catalog {args.action}' takes a GLOB or --all-local (one of the two)",
            f"e.g. 'monodex catalog {args.action} {cat.name} \"feature/*\"' or --all-local",
        )
    glob = ALL_LOCAL if args.all_local else _check_glob(args.glob)
    if args.action == "track":
        track = cat.track if glob in cat.track else (*cat.track, glob)
        resumed = known_labels.retrack(p.state_dir, cat.name, glob)
    elif glob not in cat.track:
        raise UsageError(
            f"catalog {cat.name!r} does not track {glob!r} (it tracks: {', '.join(cat.track) or 'no globs'})",
            "see 'monodex catalog list'",
        )
    else:
        track, resumed = tuple(g for g in cat.track if g != glob), []
    new = dataclasses.replace(cat, track=track)
    config.save(p, dataclasses.replace(cfg, catalogs={**cfg.catalogs, cat.name: new}))
    return {**_as_dict(new), "resumed_labels": resumed}


def _remove(p: paths.Paths, cfg: config.Config, args: argparse.Namespace) -> CatalogRemoved:
    name = names.validate_catalog(args.name)
    result: CatalogRemoved = {"name": name, "purged": bool(args.purge)}
    if name in cfg.catalogs:
        row = _as_dict(cfg.catalogs[name])
        result["type"], result["path"], result["track"] = row["type"], row["path"], row["track"]
    elif not args.purge:
        raise UsageError(f"unknown catalog {name!r}", "see 'monodex catalog list'")
    if args.purge:  # before unregistering: a failure leaves the catalog registered, rm again works
        purged = route.execute(p, rq.PurgeCatalogRequest(name), quiet=args.json)
        result["labels_removed"] = purged["labels_removed"]
        result["chunks_deleted"] = purged["chunks_deleted"]
    if name in cfg.catalogs:
        catalogs = {k: v for k, v in cfg.catalogs.items() if k != name}
        config.save(p, dataclasses.replace(cfg, catalogs=catalogs))
    return result


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    if args.action == "list":
        listed: CatalogList = {
            "catalogs": [_as_dict(c) for c in sorted(cfg.catalogs.values(), key=lambda c: c.name)]
        }
        output.emit(listed, as_json=args.json, render=_render_list)
        return 0
    if args.action in ("track", "untrack"):
        output.emit(_track(p, cfg, args), as_json=args.json, render=_render_track)
        return 0
    if args.action == "rm":
        output.emit(_remove(p, cfg, args), as_json=args.json, render=_render_rm)
        return 0
    name = names.validate_catalog(args.name)
    if name in cfg.catalogs and not args.force:
        raise UsageError(
            f"catalog {name!r} already exists ({cfg.catalogs[name].path})",
            "pass --force to change its path, or pick another name",
        )
    old = cfg.catalogs.get(name)
    new = config.Catalog(name=name, path=_check_repo(Path(args.path)))
    if old is not None:  # --force changes the path only; what it tracks stays
        new = dataclasses.replace(old, path=new.path)
    config.save(p, dataclasses.replace(cfg, catalogs={**cfg.catalogs, name: new}))
    added: CatalogAdded = {**_as_dict(new), "next": _next_steps(p, new)}
    output.emit(added, as_json=args.json, render=_render_add)
    return 0


def _next_steps(p: paths.Paths, cat: config.Catalog) -> list[str]:
    """What a newly registered catalog still needs: an index, hooks, a runner (those not there yet)."""
    from monodex.hooks.install import installed

    steps = [crawl_command(cat)]
    if not installed(cat.path):
        steps.append(f"monodex hooks install --repo {cat.path}")
    if runnerpid.running_pid(p) is None:
        steps.append("monodex runner install-service (or 'monodex runner' in a terminal)")
    return steps


def _render_add(r: CatalogAdded) -> str:
    lines = [f"registered catalog {r['name']}: {r['path']}", "next:", *(f"  {s}" for s in r["next"])]
    return "\n".join(lines)


def _render_list(result: CatalogList) -> str:
    rows = result["catalogs"]
    if not rows:
        return "no catalogs; register one with 'monodex catalog add NAME PATH'"
    return "\n".join(f"{r['name']}\t{r['path']}\ttrack: {' '.join(r['track']) or '-'}" for r in rows)


def _render_track(r: CatalogTracked) -> str:
    text = f"catalog {r['name']} tracks: {', '.join(r['track']) or 'no globs'} (plus the default branch)"
    if r["resumed_labels"]:
        text += f"\nhooks refresh again: {', '.join(r['resumed_labels'])}"
    return text


def _render_rm(r: CatalogRemoved) -> str:
    if r["purged"]:
        labels = ", ".join(r["labels_removed"]) or "none"
        return f"removed catalog {r['name']}; labels removed: {labels}; {r['chunks_deleted']} chunks deleted"
    return (
        f"removed catalog {r['name']}: {r['path']}\n"
        f"its labels stay in the index; remove them with 'monodex catalog rm {r['name']} --purge'"
    )
