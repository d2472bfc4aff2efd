"""Which strategy chunks a file, by its name, where no crawl policy says (`monodex chunk FILE`).

A crawl follows its policy's `fileTypes`; this reads the one suffix table (monodex/schema/languages.py).
Light: it imports no chunker (shebang.py reads one line, header.py one pattern), so naming a
strategy loads no grammar.
"""

from __future__ import annotations

from monodex.indexer.chunkers import header, shebang

from monodex.schema.languages import is_git_hook, language_of

# A language whose chunker has another name.
_STRATEGY = {"shell": "bash"}


def strategy_for(file_name: str, text: str = "") -> str:
    """The strategy for a file name by its suffix's language; a name without a dot whose text
    opens with `#!`, or a git hook's, is a `script` (shebang.py); else `lineBased`."""
    lang = language_of(file_name)
    if file_name.endswith(".h"):  # C or C++ by its text, as the built-in policy reads it
        return header.NAME
    if lang:
        return _STRATEGY.get(lang, lang)
    script = text.startswith("#!") or is_git_hook(file_name)
    return shebang.NAME if "." not in file_name and script else "lineBased"
