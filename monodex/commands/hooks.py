"""Install or remove the git hooks that keep a repository's labels fresh."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from monodex.commands.common import add_json
from monodex.disk import paths
from monodex.git import files
from monodex.hooks import install as installer
from monodex.observe import output
from monodex.schema.setup import HooksDone
from monodex.settings import config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name, text in (
        ("install", "write the hook scripts (idempotent; chains existing hooks)"),
        ("uninstall", "remove monodex's hook scripts and restore chained ones"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--repo", default=".", help="the repository (default: the current directory)")
        p.add_argument(
            "--hooks-path", action="store_true", help="install into core.hooksPath even though it is set"
        )
        add_json(p)


def _render(r: HooksDone) -> str:
    verb = "installed" if r["action"] == "install" else "removed"
    text = f"{verb} {', '.join(r['hooks']) or 'nothing'} in {r['hooks_dir']}"
    if r["chained"]:
        what = "kept and chained" if r["action"] == "install" else "restored"
        text += f"\nexisting hooks {what}: {', '.join(r['chained'])}"
    if r.get("note"):
        text += f"\nnote: {r['note']}"
    return text


def _catalog_note(repo: Path) -> str:
    """Hooks in a repository no catalog names see nothing to do: say so, and how to register it."""
    dirs = files.find(repo.resolve())
    if dirs is None:
        return ""
    for cat in config.load(paths.resolve()).catalogs.values():
        other = files.find(cat.path)
        if other is not None and other.common_dir == dirs.common_dir:
            return ""
    name = re.sub(r"[^a-z0-9]+", "-", dirs.worktree.name.lower()).strip("-") or "NAME"
    return (
        f"{dirs.worktree} is no catalog yet: the hooks ignore it until you run "
        f"'monodex catalog add {name} {dirs.worktree}'"
    )


def run(args: argparse.Namespace) -> int:
    fn = installer.install if args.action == "install" else installer.uninstall
    done = fn(Path(args.repo), allow_hooks_path=args.hooks_path)
    result: HooksDone = {
        "action": args.action,
        "hooks_dir": str(done.hooks_dir),
        "hooks": list(done.written),
        "chained": list(done.chained),
    }
    if args.action == "install" and (note := _catalog_note(Path(args.repo))):
        result["note"] = note
    output.emit(result, as_json=args.json, render=_render)
    return 0
