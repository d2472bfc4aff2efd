"""Show the runner, the refresh in progress, the spool, the jobs' last outcomes and each label's
freshness."""

from __future__ import annotations

import argparse

from monodex.commands.common import add_json
from monodex.disk import paths
from monodex.front import render
from monodex.front.status import collect
from monodex.observe import output


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json(parser)


def run(args: argparse.Namespace) -> int:
    output.emit(collect(paths.resolve()), as_json=args.json, render=render.status)
    return 0
