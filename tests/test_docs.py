"""The README is a tour of every command and the manual in docs/ documents each one: its flags,
its `--json` shapes, command lines that parse, links that lead somewhere (sqlite-utils habit).
`tests/commands/test_readme_tour.py` runs the tour itself."""

from __future__ import annotations

import argparse
import dataclasses
import re
import shlex
from pathlib import Path

import pytest

from monodex.commands import REGISTRY
from monodex.errors import UsageError
from monodex.main import build_parser
from monodex.settings import config

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = {p.name: p.read_text() for p in sorted((ROOT / "docs").glob("*.md"))}
MANUAL = "\n".join(PAGES.values())

# Documented once, under "Every command" in docs/cli.md, rather than in each command's section.
SHARED = {"-h", "--help", "--version", "-v", "--verbose", "--json", "--catalog", "--label", "--branch"}

# DESIGN.md's CLI contract: keys scripts rely on, each spelled in its command's section.
CONTRACT = {
    "crawl": [
        "catalog", "label", "commit", "mode", "files_total", "files_reused", "files_embedded",
        "files_removed", "chunks_embedded", "seconds",  # crawl --json
        "files_to_index", "chunks", "by_strategy", "skipped",  # crawl --dry-run --json
    ],
    "search": [
        "results", "score", "file_id", "chunk_ordinal", "chunk_count", "relative_path", "start_line",
        "end_line", "package_name", "breadcrumb", "symbol_name", "chunk_kind", "text",
    ],
    "view": ["file_id", "relative_path", "chunks", "chunk_ordinal", "start_line", "end_line", "text"],
    "labels": [
        "labels", "catalog", "label", "commit_oid", "source_kind", "crawl_complete",
        "updated_at_unix_secs", "chunks",
    ],
    "verify": ["labels", "catalog", "label", "ok", "drift"],
    "status": ["runner", "running", "pid", "spool", "pending", "failed", "labels", "jobs"],
}  # fmt: skip


def section(command: str) -> str:
    """The manual's section on one command: its `## monodex X — what for` heading up to the next `##`."""
    found = re.search(rf"^## `monodex {command}` — .*?(?=^#{{1,2}} |\Z)", MANUAL, flags=re.M | re.S)
    assert found, f"no section '## `monodex {command}` — ...' in docs/"
    return found.group(0)


def command_lines(text: str) -> list[str]:
    """`monodex ...` lines of the ```bash blocks, comments dropped."""
    blocks = re.findall(r"^```bash\n(.*?)^```", text, flags=re.M | re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.startswith("monodex ")]


TOUR = README[README.index("## Tour") : README.index("\n## ", README.index("## Tour") + 1)]


@pytest.mark.parametrize("command", sorted(REGISTRY))
def test_every_command_is_in_the_readme_tour_and_has_a_section_in_the_manual(command: str) -> None:
    assert re.search(rf"(^|`)monodex {command}\b", TOUR, flags=re.M), f"{command} is not in the tour"
    assert f"monodex {command}" in section(command).splitlines()[0]


Parsers = list[tuple[tuple[str, ...], argparse.ArgumentParser]]


def _parsers(parser: argparse.ArgumentParser, prog: tuple[str, ...] = ()) -> Parsers:
    """Every parser with the command words that reach it: () for monodex, ("catalog", "add")..."""
    found = [(prog, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.extend(_parsers(sub, (*prog, name)))
    return found


def test_every_option_has_help_text() -> None:
    missing = [
        f"{p.prog} {a.option_strings or a.dest}"
        for _, p in _parsers(build_parser())
        for a in p._actions
        if not isinstance(a, argparse._SubParsersAction) and a.help is None
    ]
    assert missing == []


def test_every_option_is_documented_in_its_commands_section() -> None:
    missing = [
        f"{' '.join(prog)} {option}"
        for prog, parser in _parsers(build_parser())
        if prog
        for action in parser._actions
        for option in action.option_strings
        if option not in SHARED and not re.search(rf"{re.escape(option)}\b", section(prog[0]))
    ]
    assert missing == []


def test_the_shared_options_are_documented_once_for_every_command() -> None:
    every = PAGES["cli.md"][PAGES["cli.md"].index("## Every command") :].split("\n## ")[0]
    assert [o for o in sorted(SHARED - {"-h", "--help"}) if not re.search(rf"`{o}\b", every)] == []


@pytest.mark.parametrize("command", sorted(CONTRACT))
def test_the_cli_contracts_json_keys_are_documented_in_the_commands_section(command: str) -> None:
    text = section(command)
    assert [key for key in CONTRACT[command] if f'"{key}"' not in text] == []


@pytest.mark.parametrize("page", ["README.md", *(f"docs/{name}" for name in PAGES)])
def test_every_command_line_shown_parses(page: str) -> None:
    """Parsed as `monodex` parses them, without running: a flag renamed or removed, a choice or
    an argument gone, and the page that still shows it fails here."""
    failed = []
    for line in command_lines((ROOT / page).read_text()):
        try:
            _, extra = build_parser().parse_known_args(shlex.split(line, comments=True)[1:])
            problem = f"unknown {' '.join(extra)}" if extra else ""
        except UsageError as exc:
            problem = exc.problem
        if problem:
            failed.append(f"{line}: {problem}")
    assert failed == []


def _anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", ["README.md", *(f"docs/{name}" for name in PAGES)])
def test_every_link_leads_to_a_page_and_heading_that_exist(page: str) -> None:
    source = ROOT / page
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", source.read_text()):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (source.parent / path).resolve() if path else source
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", linked.read_text(), flags=re.M)
            if anchor not in {_anchor(h) for h in headings}:
                broken.append(target)
    assert broken == []


def test_every_config_key_is_documented() -> None:
    """config.json's keys as config.py reads them, each spelled `section.key` in docs/config.md."""
    sections = {
        "qdrant": config.QdrantConfig,
        "embedder": config.EmbedderConfig,
        "crawl": config.CrawlConfig,
        "schedules": config.Schedules,
        "catalogs.*": config.Catalog,
    }
    keys = [
        f"{name}.{field.name}"
        for name, kind in sections.items()
        for field in dataclasses.fields(kind)
        if field.name != "name"  # a catalog's name is its key in "catalogs"
    ]
    assert [key for key in keys if f"`{key}`" not in PAGES["config.md"]] == []


def test_the_index_and_the_readme_list_every_page_of_the_manual() -> None:
    index = PAGES["README.md"]
    assert [name for name in PAGES if name != "README.md" and f"]({name})" not in index] == []
    assert "](docs/README.md)" in README
    assert [name for name in PAGES if name != "README.md" and f"](docs/{name})" not in README] == []


def test_pages_the_code_points_to_exist() -> None:
    """Hints and help name a page of the manual ('docs/runner.md'); the page must be there."""
    named = {
        page
        for room in ("monodex", "hooks", "scheduler", "indexer")
        for source in (ROOT / room).rglob("*.py")
        for page in re.findall(r"docs/[\w-]+\.md", source.read_text())
    }
    assert named and [page for page in sorted(named) if not (ROOT / page).exists()] == []


def test_readme_gives_the_two_setup_commands_ci_runs() -> None:
    setup = README[README.index("## Set-up") : README.index("## Tour")]
    assert "./dev demo" in setup and "./dev test" in setup
    ci = (ROOT / ".ci" / "run").read_text()
    assert "./dev test" in ci
    # CI checks what the developers check (issue 13): lint and strict types before the tests.
    assert ci.index("./dev check") < ci.index("./dev test")


def test_the_readme_is_read_in_five_minutes() -> None:
    assert len(README.splitlines()) <= 200  # issue 37: the manual is docs/, not the README
