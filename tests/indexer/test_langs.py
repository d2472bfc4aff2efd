"""`--lang` knows the languages of a polyglot monorepo (issue 23)."""

from __future__ import annotations

import pytest
from monodex.indexer.points.langs import LANGS, lang_of, lang_values

from monodex import requests as rq


def test_the_cli_lists_exactly_the_languages_files_are_stored_under() -> None:
    assert set(rq.LANGUAGES) == set(LANGS.values())
    assert all(alias not in rq.LANGUAGES and lang in rq.LANGUAGES for alias, lang in rq.LANG_ALIASES.items())


@pytest.mark.parametrize(
    ("path", "lang"),
    [
        ("crates/napi/src/lib.rs", "rust"),
        ("tools/cli.py", "python"),
        ("svc/main.go", "go"),
        ("app/Main.kt", "kotlin"),
        ("ios/Kit.swift", "swift"),
        ("native/acme.hpp", "cpp"),
        ("scripts/release.sh", "shell"),
        ("Cargo.toml", "toml"),
        ("rush.json", "json"),
        ("index.cjs", "javascript"),
        ("notes.txt", "txt"),  # as before: stored chunks keep matching
    ],
)
def test_lang_of(path: str, lang: str) -> None:
    assert lang_of(path) == lang


def test_a_language_also_matches_chunks_stored_under_its_bare_suffix() -> None:
    assert lang_values("rust") == ("rust", "rs")
    assert lang_values("python") == ("python", "py", "pyi")
    assert lang_values("vue") == ("vue",)  # a custom policy's suffix: itself


@pytest.mark.parametrize(
    ("given", "lang"), [("rs", "rust"), ("Python", "python"), (" C# ", "csharp"), ("vue", "vue")]
)
def test_search_request_normalises_language_aliases(given: str, lang: str) -> None:
    assert rq.SearchRequest("acme", "main", "q", lang=given).lang == lang
