"""The language a file is written in, from its suffix (the `lang` payload `--lang` filters on),
by the one suffix table (monodex/schema/languages.py). Imports no chunker: the search path reads it
without loading a grammar."""

from __future__ import annotations

from monodex.schema.languages import SUFFIXES as LANGS
from monodex.schema.languages import suffix_of

__all__ = ["LANGS", "lang_of", "lang_values"]


def lang_of(relative_path: str) -> str:
    """`--lang` filters on this: the language a file is written in, from its extension (a suffix
    the table does not know: itself without its dot, else `text`)."""
    ext = suffix_of(relative_path)
    return LANGS.get(ext, ext.lstrip(".") or "text")


def lang_values(lang: str) -> tuple[str, ...]:
    """The stored `lang` values of one language: its name, and the bare suffixes files of it were
    stored under before the language had a name here (`rust` and `rs`), so `--lang rust` finds
    chunks stored either way."""
    suffixes = sorted(ext.lstrip(".") for ext, name in LANGS.items() if name == lang)
    return (lang, *(s for s in suffixes if s != lang))
