"""`--lang` knows the languages of a polyglot monorepo (issue 23)."""

from __future__ import annotations

import pytest
from monodex.indexer.points.langs import LANGS, lang_of, lang_values

from monodex import requests as rq
from monodex.schema import languages


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
        (".editorconfig", "text"),  # a settings dotfile's name is no language
        ("packages/app/.prettierrc", "text"),
        (".eslintrc.json", "json"),
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


def test_one_suffix_table_names_the_language_and_the_strategy() -> None:
    """monodex/schema/languages.py is the only table: every suffix's `lang` is its language, and
    `monodex chunk` picks that language's registered chunker (bash for shell)."""
    from monodex.indexer.chunkers import CHUNKERS
    from monodex.indexer.chunkers.suffixes import strategy_for

    for suffix, lang in languages.SUFFIXES.items():
        assert lang_of(f"src/a{suffix.upper()}") == lang
        # a `.h` file is C or C++ by its text (chunkers/header.py); its suffix's lang is C
        expected = "header" if suffix == ".h" else {"shell": "bash"}.get(lang, lang)
        assert strategy_for(f"a{suffix}") == expected
        assert strategy_for(f"a{suffix}") in CHUNKERS
    assert LANGS is languages.SUFFIXES and rq.LANGUAGES == languages.LANGUAGES
    assert strategy_for("README") == "lineBased" and lang_of("README") == "text"
    assert (strategy_for("notes.mdx"), lang_of("tsconfig.base.jsonc")) == ("markdown", "json")
