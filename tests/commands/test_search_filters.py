"""Search filters narrow the results inside Qdrant (payload indexes), not after the fact."""

from __future__ import annotations

import pytest
from monodex.indexer.chunkers.base import CHUNK_KINDS

from monodex.requests import KINDS

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--limit", "20", "--json")


def _paths(run_json, *flags: str) -> set[str]:  # type: ignore[no-untyped-def]
    code, found, err = run_json(*SEARCH, "--text", "load configuration and print colors", *flags)
    assert code == 0, err
    return {r["relative_path"] for r in found["results"]}


def test_filters_by_folder_file_package_kind_and_language(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    every = _paths(run_json)
    assert len(every) == 9  # 3 .ts, README.md, 4 package.json and rush.json (config is indexed)
    assert _paths(run_json, "--path", "libraries/net") == {
        "libraries/net/src/retry.ts",
        "libraries/net/package.json",
    }
    assert _paths(run_json, "--path", "./libraries/net/", "--path", "README.md") == {
        "libraries/net/src/retry.ts",
        "libraries/net/package.json",
        "README.md",
    }
    assert _paths(run_json, "--path", "libraries/ne", "--path", "README.md") == {"README.md"}  # whole folders
    assert _paths(run_json, "--package", "@acme/terminal") == {
        "libraries/terminal/src/colors.ts",
        "libraries/terminal/package.json",
    }
    assert _paths(run_json, "--lang", "Markdown") == {"README.md"}
    assert _paths(run_json, "--lang", "typescript") == {p for p in every if p.endswith(".ts")}
    assert _paths(run_json, "--lang", "json") == {p for p in every if p.endswith(".json")}
    assert _paths(run_json, "--kind", "changelog") == set()
    code, found, _ = run_json(*SEARCH, "--text", "colors", "--kind", "content")
    assert code == 0 and {r["chunk_kind"] for r in found["results"]} == {"content"}


@pytest.mark.parametrize("flags", [("--path", "../elsewhere"), ("--path", "/"), ("--kind", "tests")])
def test_bad_filters_are_usage_errors(crawled, run_json, capsys, flags) -> None:  # type: ignore[no-untyped-def]
    try:
        code, _, err = run_json(*SEARCH, "--text", "anything", *flags)
    except SystemExit as exc:  # argparse rejects a --kind outside its choices itself
        code, err = exc.code, capsys.readouterr().err
    assert code == 2
    assert "--path" in err or "invalid choice: 'tests'" in err


def test_a_folder_the_label_does_not_have_is_a_usage_error_naming_it(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json(*SEARCH, "--text", "retry", "--path", "libraries/ne")
    assert code == 2
    assert (
        "--path 'libraries/ne': label 'main' has no such folder or file" in err
        and "did you mean libraries/net," in err
    )
    code, _, err = run_json(*SEARCH, "--text", "retry", "--path", "nowhere/at/all")
    assert code == 2 and "'nowhere/at/all'" in err and "--path" in err


def test_the_cli_knows_every_chunk_kind() -> None:
    assert KINDS == CHUNK_KINDS
