"""The language a file is written in, from its suffix (the `lang` payload `--lang` filters on).
Imports nothing: the search path reads it without loading the chunkers."""

from __future__ import annotations

LANGS = {
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".md": "markdown",
    ".mdx": "markdown",
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".py": "python",
    ".pyi": "python",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".sh": "shell",
    ".bash": "shell",
}


def lang_of(relative_path: str) -> str:
    """`--lang` filters on this: the language a file is written in, from its extension."""
    name = relative_path.rsplit("/", 1)[-1].lower()
    ext = "." + name.rsplit(".", 1)[-1] if "." in name else ""
    return LANGS.get(ext, ext.lstrip(".") or "text")


def lang_values(lang: str) -> tuple[str, ...]:
    """The stored `lang` values of one language: its name, and the bare suffixes files of it were
    stored under before the language had a name here (`rust` and `rs`), so `--lang rust` finds
    chunks stored either way."""
    suffixes = sorted(ext.lstrip(".") for ext, name in LANGS.items() if name == lang)
    return (lang, *(s for s in suffixes if s != lang))
