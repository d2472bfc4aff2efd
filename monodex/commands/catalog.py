"""Register, list and remove catalogs (repositories) in config.json."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from monodex import config, names, output, paths
from monodex.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    add = sub.add_parser("add", help="register a git repository as a catalog")
    add.add_argument("name", help="catalog name, e.g. 'rushstack'")
    add.add_argument("path", help="path of the repository's work tree")
    add.add_argument("--force", action="store_true", help="replace an existing catalog's path")
    add.add_argument("--json", action="store_true", help="print the result as JSON")
    lst = sub.add_parser("list", help="list registered catalogs")
    lst.add_argument("--json", action="store_true", help="print the result as JSON")
    rm = sub.add_parser("rm", help="unregister a catalog (its index is kept until gc)")
    rm.add_argument("name", help="catalog name")
    rm.add_argument("--json", action="store_true", help="print the result as JSON")


def _as_dict(c: config.Catalog) -> dict[str, Any]:
    return {"name": c.name, "type": c.type, "path": str(c.path)}


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


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    if args.action == "list":
        rows = [_as_dict(c) for c in sorted(cfg.catalogs.values(), key=lambda c: c.name)]
        output.emit({"catalogs": rows}, as_json=args.json, render=_render_list)
        return 0
    name = names.validate_catalog(args.name)
    catalogs = dict(cfg.catalogs)
    if args.action == "add":
        if name in catalogs and not args.force:
            raise UsageError(
                f"catalog {name!r} already exists ({catalogs[name].path})",
                "pass --force to change its path, or pick another name",
            )
        catalogs[name] = config.Catalog(name=name, path=_check_repo(Path(args.path)))
        result = _as_dict(catalogs[name])
    else:
        if name not in catalogs:
            raise UsageError(f"unknown catalog {name!r}", "see 'monodex catalog list'")
        result = _as_dict(catalogs.pop(name))
    config.save(p, dataclasses.replace(cfg, catalogs=catalogs))
    verb = "registered" if args.action == "add" else "removed"
    output.emit(result, as_json=args.json, render=lambda r: f"{verb} catalog {r['name']}: {r['path']}")
    return 0


def _render_list(result: dict[str, Any]) -> str:
    rows = result["catalogs"]
    if not rows:
        return "no catalogs; register one with 'monodex catalog add NAME PATH'"
    return "\n".join(f"{r['name']}\t{r['path']}" for r in rows)
