"""chunk_kind from the file itself: changelogs and configuration are not source code."""

from __future__ import annotations

import posixpath

_CONFIG_SUFFIXES = (".yml", ".yaml", ".json", ".jsonc", ".json5", ".toml", ".ini", ".cfg", ".conf")


def file_kind(relative_path: str, strategy: str) -> str:
    base = posixpath.basename(relative_path)
    lower = base.lower()
    if lower.startswith("changelog"):
        return "changelog"
    if strategy == "lineBased" and (
        lower.endswith(_CONFIG_SUFFIXES)
        or lower.startswith("tsconfig")
        or (lower.startswith(".") and lower.endswith("rc"))
    ):
        return "config"
    return "content"
