"""Flags several commands share, spelled once."""

from __future__ import annotations

import argparse


def add_target(parser: argparse.ArgumentParser, *, label_required: bool = False) -> None:
    parser.add_argument("--catalog", help="catalog name (default: from 'monodex use')")
    parser.add_argument(
        "--label",
        required=label_required,
        help="label name, usually a branch" + ("" if label_required else " (default: from 'monodex use')"),
    )


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document on stdout")
