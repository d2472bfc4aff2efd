"""Flags several commands share, spelled once."""

from __future__ import annotations

import argparse

from monodex import names


def add_target(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--catalog", help="catalog name (default: from 'monodex use')")
    add_label(parser, help="label name, usually a branch (default: from 'monodex use')")


def add_label(parser: argparse.ArgumentParser, *, help: str) -> None:  # noqa: A002 - argparse's word
    """--label, or --branch NAME mapped to its label the way the hooks map it."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--label", help=help)
    group.add_argument(
        "--branch",
        metavar="NAME",
        help="a branch name instead of --label: mapped as the hooks map it (feature/Login_Flow -> "
        "feature/login-flow)",
    )


def label_of(args: argparse.Namespace) -> str | None:
    """The label the user named, with --label or --branch; None when neither was given."""
    if getattr(args, "branch", None):
        return names.label_for_branch(args.branch)
    label: str | None = args.label
    return label


# Request fields (monodex/requests.py) the CLI spells otherwise than --field-name.
_FLAGS = {
    "paths": "--path",
    "file_id": "--id",
    "from_label": "--from",
    "to_label": "--to",
    "target": "--containing",
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
