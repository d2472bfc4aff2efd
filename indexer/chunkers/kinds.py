"""chunk_kind from the file itself: changelogs and configuration are not source code."""

from __future__ import annotations

import posixpath

CONFIG_STRATEGIES = ("json", "toml", "yaml")  # every chunk of theirs is `config`
_CONFIG_SUFFIXES = (".yml", ".yaml", ".json", ".jsonc", ".json5", ".toml", ".ini", ".cfg", ".conf")


def is_config(file_name: str) -> bool:
    """Configuration by name: data formats, `tsconfig*`, and dot-less run-commands files (`.npmrc`)."""
    lower = file_name.lower()
    stem = lower.lstrip(".")
    rc_file = stem.endswith("rc") and "." not in stem
    return lower.endswith(_CONFIG_SUFFIXES) or lower.startswith("tsconfig") or rc_file


def file_kind(relative_path: str, strategy: str) -> str:
    """`changelog` for CHANGELOG.* of any strategy, `config` for config strategies and line-based
    configuration files, else `content` (the syntax-aware chunkers refine that to `imports` per chunk)."""
    base = posixpath.basename(relative_path)
    if base.lower().startswith("changelog"):
        return "changelog"
    if strategy in CONFIG_STRATEGIES or (strategy == "lineBased" and is_config(base)):
        return "config"
    return "content"
