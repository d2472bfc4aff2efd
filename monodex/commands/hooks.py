"""Install or remove the git hooks that keep a repository's labels fresh."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from monodex import output
from monodex.commands.common import add_json
from monodex.hooks import install as installer


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


def _render(r: dict[str, Any]) -> str:
    verb = "installed" if r["action"] == "install" else "removed"
    text = f"{verb} {', '.join(r['hooks']) or 'nothing'} in {r['hooks_dir']}"
    if r["chained"]:
        what = "kept and chained" if r["action"] == "install" else "restored"
        text += f"\nexisting hooks {what}: {', '.join(r['chained'])}"
    return text


def run(args: argparse.Namespace) -> int:
    fn = installer.install if args.action == "install" else installer.uninstall
    done = fn(Path(args.repo), allow_hooks_path=args.hooks_path)
    result = {
        "action": args.action,
        "hooks_dir": str(done.hooks_dir),
        "hooks": list(done.written),
        "chained": list(done.chained),
    }
    output.emit(result, as_json=args.json, render=_render)
    return 0
