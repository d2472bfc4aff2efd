"""Which strategy chunks a file, by its name, where no crawl policy says (`monodex chunk FILE`).

A crawl follows its policy's `fileTypes`; this is the table a policy can start from. Light: it
imports nothing, so naming a strategy loads no grammar.
"""

from __future__ import annotations

SUFFIXES = {
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".md": "markdown",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".py": "python",
    ".pyi": "python",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".kt": "kotlin",
    ".kts": "kotlin",
    ".swift": "swift",
    ".c": "c",
    ".h": "c",  # C++ headers parse with the C grammar well enough; a policy may say "cpp"
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".cs": "csharp",
    ".sh": "bash",
    ".bash": "bash",
    ".json": "json",
    ".jsonc": "json",
    ".toml": "toml",
    ".yml": "yaml",
    ".yaml": "yaml",
}


def strategy_for(file_name: str) -> str:
    """The strategy for a file name by its longest known suffix, else `lineBased`."""
    lower = file_name.lower()
    best = max((s for s in SUFFIXES if lower.endswith(s)), key=len, default=None)
    return SUFFIXES[best] if best else "lineBased"
