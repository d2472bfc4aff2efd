"""Which package a file belongs to: the `name` of the nearest ancestor package.json.

Built from git objects (commit crawls) or from files on disk (working-dir crawls). A manifest
that is not JSON, not an object, or has no non-empty string `name` is ignored (debug log), so
its files fall through to the next package.json up.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable
from pathlib import Path

from monodex import logs

MANIFEST = "package.json"


class PackageIndex:
    def __init__(self, names: dict[str, str]) -> None:
        self.names = names  # folder ("" = repo root) -> package name

    @classmethod
    def from_manifests(cls, manifests: Iterable[tuple[str, bytes]]) -> PackageIndex:
        """From (repo-relative path of a package.json, its content) pairs."""
        names: dict[str, str] = {}
        for path, content in manifests:
            name = _name(path, content)
            if name is not None:
                names[posixpath.dirname(path)] = name
        return cls(names)

    @classmethod
    def from_working_dir(cls, root: Path, manifest_paths: Iterable[str]) -> PackageIndex:
        """From package.json files on disk, given their repo-relative paths (never links)."""
        pairs = []
        for rel in manifest_paths:
            target = root / rel
            if target.is_symlink() or not target.is_file():
                continue
            try:
                pairs.append((rel, target.read_bytes()))
            except OSError as exc:
                logs.get().debug("packages.unreadable", path=rel, error=str(exc))
        return cls.from_manifests(pairs)

    def lookup(self, relative_path: str) -> str | None:
        """The package of a file: walk up from its folder to the repo root; None if none applies."""
        folder = posixpath.dirname(relative_path)
        while True:
            if folder in self.names:
                return self.names[folder]
            if not folder:
                return None
            folder = posixpath.dirname(folder)


def is_manifest(path: str) -> bool:
    return path == MANIFEST or path.endswith("/" + MANIFEST)


def _name(path: str, content: bytes) -> str | None:
    try:
        doc = json.loads(content.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        logs.get().debug("packages.malformed", path=path, error=str(exc))
        return None
    name = doc.get("name") if isinstance(doc, dict) else None
    if not isinstance(name, str) or not name.strip():
        logs.get().debug("packages.nameless", path=path)
        return None
    return name.strip()
