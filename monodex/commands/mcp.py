"""Serve the index to AI agents as Model Context Protocol tools over stdio."""

from __future__ import annotations

import argparse

from monodex.disk import paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Run a Model Context Protocol server on stdin/stdout with the tools search, view, labels, "
        "diff, labels_containing and status. Register it in an MCP client as the command "
        "'monodex mcp' (see docs/mcp.md)."
    )


def run(args: argparse.Namespace) -> int:
    from monodex.front.mcp import build

    build(paths.resolve()).run("stdio")
    return 0
