"""Which strategy chunks a file, by its name, where no crawl policy says (`monodex chunk FILE`).

A crawl follows its policy's `fileTypes`; this reads the one suffix table (monodex/schema/languages.py).
Light: it imports no chunker, so naming a strategy loads no grammar.
"""

from __future__ import annotations

from monodex.schema.languages import language_of

# A language whose chunker has another name.
_STRATEGY = {"shell": "bash"}


def strategy_for(file_name: str) -> str:
    """The strategy for a file name by its suffix's language, else `lineBased`."""
    lang = language_of(file_name)
    return _STRATEGY.get(lang, lang) if lang else "lineBased"
