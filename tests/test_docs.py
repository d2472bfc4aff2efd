"""The README tour covers every command, the manual in docs/ has a section for each, and every
option has help text (sqlite-utils habit)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from monodex.commands import REGISTRY
from monodex.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MANUAL = "\n".join(p.read_text() for p in sorted((ROOT / "docs").glob("*.md")))


@pytest.mark.parametrize("command", sorted(REGISTRY))
def test_every_command_is_in_the_readme_tour_and_the_manual(command: str) -> None:
    assert f"monodex {command}" in README
    assert f"## `monodex {command}`" in MANUAL


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.extend(_parsers(sub))
    return found


def test_every_option_has_help_text() -> None:
    missing = [
        f"{p.prog} {a.option_strings or a.dest}"
        for p in _parsers(build_parser())
        for a in p._actions
        if not isinstance(a, argparse._SubParsersAction) and a.help is None
    ]
    assert missing == []


def test_readme_gives_the_two_setup_commands_ci_runs() -> None:
    assert "./dev demo" in README and "./dev test" in README
    ci = (Path(__file__).resolve().parents[1] / ".ci" / "run").read_text()
    assert "./dev test" in ci
    # CI checks what the developers check (issue 13): lint and strict types before the tests.
    assert ci.index("./dev check") < ci.index("./dev test")
