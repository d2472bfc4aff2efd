"""Which package a file belongs to: the nearest ancestor package.json's `name`."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable


class PackageIndex:
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names  # folder ("" = repo root) -> package name

    @classmethod
    def from_manifests(cls, manifests: Iterable[tuple[str, bytes]]) -> PackageIndex:
        """From (path of a package.json, its content); unreadable or nameless ones are ignored."""
        names: dict[str, str] = {}
        for path, content in manifests:
            try:
                name = json.loads(content.decode("utf-8")).get("name")
            except (ValueError, UnicodeDecodeError, AttributeError):
                continue
            if isinstance(name, str) and name.strip():
                names[posixpath.dirname(path)] = name.strip()
        return cls(names)

    def lookup(self, relative_path: str) -> str | None:
        folder = posixpath.dirname(relative_path)
        while True:
            if folder in self.names:
                return self.names[folder]
            if not folder:
                return None
            folder = posixpath.dirname(folder)


def is_manifest(path: str) -> bool:
    return path == "package.json" or path.endswith("/package.json")
