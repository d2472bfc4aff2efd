"""JSON, TOML and YAML config as key-path sections (issue 23): `rush.json:projects`,
`Cargo.toml:dependencies`, `ci.yml:jobs.build`; big arrays split between their elements."""

from __future__ import annotations

import pytest
from monodex.indexer.chunkers import chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext

from tests.indexer.chunkers.configs import CONFIGS


def _chunks(strategy: str, budget: int) -> tuple[str, list[Chunk]]:
    path, text = CONFIGS[strategy]
    return text, chunk_file(strategy, text, FileContext(path, "repo", budget))


@pytest.mark.parametrize("strategy", sorted(CONFIGS))
def test_config_chunks_are_all_config_and_split_on_keys(strategy: str) -> None:
    for budget in (300, 802):  # (a 200-byte doc comment is one node: 120 bytes cut inside it)
        chunks = _chunks(strategy, budget)[1]
        assert {c.chunk_kind for c in chunks} == {"config"}
        assert not [c for c in chunks if c.breadcrumb.endswith(":[fallback-split]")]


def test_rush_json_projects_split_between_their_entries() -> None:
    text, chunks = _chunks("json", 802)
    projects = [c for c in chunks if c.symbol_name == "projects"]
    assert len(projects) >= 4 and projects[0].breadcrumb == "repo:rush.json:projects"
    for c in projects[:-1]:  # each ends after a whole entry; the last one closes the array too
        assert c.text.rstrip().endswith("},"), c.text[-40:]
    assert "gitPolicy" in {c.symbol_name for c in _chunks("json", 120)[1]}


def test_cargo_toml_sections_are_named_by_table_and_key() -> None:
    symbols = {c.symbol_name for c in _chunks("toml", 120)[1]}
    assert {"package", "lib", "features", "dependencies", "dependencies.tokio"} <= symbols


def test_workflow_jobs_are_named_by_key_path() -> None:
    chunks = _chunks("yaml", 300)[1]
    symbols = {c.symbol_name for c in chunks}
    assert {"jobs", "jobs.build.steps", "jobs.lint"} <= symbols
    smaller = {c.symbol_name for c in _chunks("yaml", 120)[1]}
    assert {"env", "jobs.build.strategy", "jobs.build.steps.with", "jobs.lint.steps"} <= smaller
    assert "repo:ci.yml:jobs.lint" in {c.breadcrumb for c in chunks}


def test_a_changelog_json_stays_a_changelog() -> None:
    text = '{\n  "name": "@example/lib",\n  "entries": []\n}\n'
    chunks = chunk_file("json", text, FileContext("libraries/lib/CHANGELOG.json", "lib", 802))
    assert [c.chunk_kind for c in chunks] == ["changelog"]


def test_a_dotted_toml_key_keeps_the_quotes_of_its_parts() -> None:
    # issue 35: `[target.'cfg(unix)']` was named `target.'cfg(unix)` (its closing quote stripped)
    text = (
        '[package]\nname = "x"\n\n'
        "[target.'cfg(target_os = \"linux\")']\n"
        'rustflags = ["-C", "target-feature=+crt-static"]\n\n'
        "[target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n"
    )
    chunks = chunk_file("toml", text, FileContext("Cargo.toml", "x", 50))
    symbols = {c.symbol_name for c in chunks}
    assert {"target.'cfg(target_os = \"linux\")'", "target.'cfg(unix)'.dependencies"} <= symbols
