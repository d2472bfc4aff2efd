"""Flags several commands share, spelled once."""

from __future__ import annotations

import argparse
from pathlib import Path

from monodex import names
from monodex.disk.paths import Paths
from monodex.disk.paths import resolve as resolve_paths
from monodex.errors import UsageError
from monodex.front.route import ends_with_command as ends_with_command
from monodex.labels import standing
from monodex.settings import config, context


class Once(argparse.Action):
    """A flag that takes one value: given twice it is an error, not silently the last one."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option: str | None = None,
    ) -> None:
        if getattr(namespace, self.dest, None) is not None:
            parser.error(f"{option} was given twice: a search, crawl or view reads one {self.dest} at a time")
        setattr(namespace, self.dest, values)


def add_target(parser: argparse.ArgumentParser, *, worktree: bool = False) -> None:
    parser.add_argument(
        "--catalog",
        action=Once,
        help="catalog name (default: the repository you stand in, else 'monodex use')",
    )
    add_label_flags(
        parser,
        help="label name, usually a branch (default: the branch checked out where you stand, "
        "else 'monodex use')",
    )
    if worktree:
        parser.add_argument(
            "--worktree",
            metavar="PATH",
            help="answer as if standing in this checkout (a linked worktree or the main one): its "
            "catalog and branch are the defaults, and a search sees its uncommitted files "
            "(default: the current directory)",
        )


def scope(p: Paths, args: argparse.Namespace) -> context.Scope:
    """The catalog and label a command answers for: flags > where you stand (the current
    directory, or --worktree PATH) > 'monodex use'."""
    branch, worktree = getattr(args, "branch", None), getattr(args, "worktree", None)
    return context.scope(p, args.catalog, args.label, branch=branch, here=Path.cwd(), worktree=worktree)


def add_label_flags(parser: argparse.ArgumentParser, *, help: str) -> None:  # noqa: A002 - argparse's word
    """--label, or --branch NAME mapped to its label the way the hooks map it."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--label", action=Once, help=help)
    group.add_argument(
        "--branch",
        action=Once,
        metavar="NAME",
        help="a branch name instead of --label: mapped as the hooks map it (feature/Login_Flow -> "
        "feature/login-flow); HEAD is the branch checked out where you stand",
    )


def label_of(args: argparse.Namespace) -> str | None:
    """The label the user named, with --label or --branch; None when neither was given."""
    if getattr(args, "branch", None) == "HEAD":  # the branch checked out where you stand
        return context.scope(resolve_paths(), args.catalog, None, branch="HEAD", here=Path.cwd()).label
    if getattr(args, "branch", None):
        p = resolve_paths()
        try:  # the catalog's label for it: another when a branch named alike holds the plain one
            catalog = context.resolve_catalog(p, args.catalog, here=Path.cwd())
        except UsageError:
            return names.label_for_branch(args.branch)
        return context.branch_label(p, catalog, args.branch)
    label: str | None = args.label
    return label


def crawl_command(cat: config.Catalog) -> str:
    """A crawl of the catalog's checked-out HEAD into the label it belongs in, that runs from any
    directory: outside the repository no branch stands in for --label (issue 35)."""
    from monodex.git import files  # here: reads two files; only the next steps need it

    dirs = files.find(cat.path)
    ref, commit = files.head(dirs) if dirs is not None else (None, None)
    if ref is not None:
        label = f"--branch {ref.removeprefix('refs/heads/')}"
    else:  # a detached HEAD's label is its commit's (DESIGN.md: one branch, one label)
        label = f"--label {standing.commit_label(commit)}" if commit else "--label main"
    return f"monodex crawl --catalog {cat.name} {label} --commit HEAD"


# Request fields (monodex/requests/) the CLI spells otherwise than --field-name.
_FLAGS = {
    "paths": "--path",
    "file_id": "--id",
    "from_label": "--from",
    "to_label": "--to",
    "target": "--containing",
    "modes": "--mode",
}


def flag(field: str) -> str:
    """The CLI's flag for a request field: errors about a field name it the way the user typed it."""
    return _FLAGS.get(field) or "--" + field.replace("_", "-")


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")


def add_paths(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--path",
        action="append",
        dest="paths",
        metavar="PREFIX",
        help="only files in this folder (or this file), relative to the repository root; repeatable",
    )
