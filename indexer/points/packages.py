"""Which package a file belongs to: the name in the nearest ancestor folder's manifest.

Every ecosystem that shares a monorepo with TypeScript names its packages in a manifest:
package.json `name`, Cargo.toml `[package] name`, pyproject.toml `[project] name` (setup.cfg
`[metadata] name`, a literal `name=` in setup.py), go.mod `module`, settings.gradle
`rootProject.name` or the folder of a build.gradle, pom.xml `artifactId`, Package.swift `name:`.
Built from git objects (commit crawls) or from files on disk (working-dir crawls). A manifest
that does not parse or names nothing is ignored (debug log), so its files fall through to the
next manifest up.

A folder may hold several manifests (a napi crate has Cargo.toml and package.json side by
side): a file takes the one of its own ecosystem (`.rs` -> Cargo.toml, a manifest -> itself),
else package.json, else the first in ECOSYSTEMS order. Where only package.json exists, every
file gets exactly the name it had before the other ecosystems were known (it is part of the
file id).
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from monodex.observe import logs

MANIFEST = "package.json"

# Manifest file name -> ecosystem; within one ecosystem the first listed file of a folder wins.
MANIFESTS: dict[str, str] = {
    "package.json": "npm",
    "Cargo.toml": "cargo",
    "pyproject.toml": "python",
    "setup.cfg": "python",
    "setup.py": "python",
    "go.mod": "go",
    "settings.gradle.kts": "gradle",
    "settings.gradle": "gradle",
    "build.gradle.kts": "gradle",
    "build.gradle": "gradle",
    "pom.xml": "maven",
    "Package.swift": "swift",
}
ECOSYSTEMS = ("npm", "cargo", "python", "go", "gradle", "maven", "swift")
# A source file's own ecosystem, by suffix (others prefer package.json).
_OWN = {
    ".rs": ("cargo",),
    ".py": ("python",),
    ".pyi": ("python",),
    ".go": ("go",),
    ".java": ("gradle", "maven"),
    ".kt": ("gradle", "maven"),
    ".kts": ("gradle", "maven"),
    ".groovy": ("gradle", "maven"),
    ".scala": ("gradle", "maven"),
    ".swift": ("swift",),
}


class PackageIndex:
    def __init__(self, names: dict[str, dict[str, str]]) -> None:
        self.names = names  # folder ("" = repo root) -> ecosystem -> package name

    @classmethod
    def from_manifests(cls, manifests: Iterable[tuple[str, bytes]]) -> PackageIndex:
        """From (repo-relative path of a manifest, its content) pairs."""
        found: dict[str, dict[str, tuple[int, str]]] = {}
        for path, content in manifests:
            name = manifest_name(path, content)
            if name is None:
                continue
            base = posixpath.basename(path)
            rank, eco = _RANK[base], MANIFESTS[base]
            slot = found.setdefault(posixpath.dirname(path), {})
            if eco not in slot or rank < slot[eco][0]:
                slot[eco] = (rank, name)
        return cls({folder: {e: n for e, (_, n) in ecos.items()} for folder, ecos in found.items()})

    @classmethod
    def from_working_dir(cls, root: Path, manifest_paths: Iterable[str]) -> PackageIndex:
        """From manifests on disk, given their repo-relative paths (never links)."""
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

    @classmethod
    def above(cls, root: Path, relative_paths: Iterable[str]) -> PackageIndex:
        """From the manifests on disk in these files' folders and their ancestors up to root, all
        that lookup() reads for them, without listing the tree (an overlay, `monodex chunk`)."""
        folders: set[str] = set()
        for path in relative_paths:
            parts = path.split("/")[:-1]
            folders.update("/".join(parts[:i]) for i in range(len(parts) + 1))
        return cls.from_working_dir(
            root, [f"{d}/{m}" if d else m for d in sorted(folders) for m in MANIFESTS]
        )

    def lookup(self, relative_path: str) -> str | None:
        """The package of a file: walk up from its folder to the repo root; None if none applies."""
        return walk_up(relative_path, lambda folder: self.names.get(folder))


class PackageLookup(Protocol):
    def lookup(self, relative_path: str) -> str | None: ...


def package_of(packages: PackageLookup, relative_path: str, catalog: str) -> str:
    """The package_name a crawl stores for a file: its manifest's name, else the catalog name."""
    return packages.lookup(relative_path) or catalog


def walk_up(relative_path: str, names_at: Callable[[str], dict[str, str] | None]) -> str | None:
    """The nearest folder with a named manifest decides; `names_at(folder)` gives its names."""
    folder = posixpath.dirname(relative_path)
    while True:
        names = names_at(folder)
        if names:
            return choose(relative_path, names)
        if not folder:
            return None
        folder = posixpath.dirname(folder)


def choose(relative_path: str, names: dict[str, str]) -> str:
    """Of one folder's package names (by ecosystem), the one a file belongs to."""
    base = posixpath.basename(relative_path)
    own = (MANIFESTS[base],) if base in MANIFESTS else _OWN.get(posixpath.splitext(base)[1], ())
    for eco in (*own, *ECOSYSTEMS):
        if eco in names:
            return names[eco]
    raise ValueError(f"no known ecosystem in {names}")


def is_manifest(path: str) -> bool:
    return posixpath.basename(path) in MANIFESTS


def manifest_name(path: str, content: bytes) -> str | None:
    """The package name a manifest declares, or None (logged at debug) when it names none."""
    base = posixpath.basename(path)
    try:
        text = content.decode("utf-8")
        name = _READERS[base](text, path)
    except (ValueError, UnicodeDecodeError, tomllib.TOMLDecodeError, ET.ParseError) as exc:
        logs.get().debug("packages.malformed", path=path, error=str(exc))
        return None
    if not isinstance(name, str) or not name.strip():
        logs.get().debug("packages.nameless", path=path)
        return None
    return name.strip()


def _name(path: str, content: bytes) -> str | None:  # the name delta.py compares across an edit
    return manifest_name(path, content)


def _table(doc: object, *keys: str) -> object:
    for key in keys:
        doc = doc.get(key) if isinstance(doc, dict) else None
    return doc


def _npm(text: str, path: str) -> object:
    return _table(json.loads(text), "name")


def _cargo(text: str, path: str) -> object:
    return _table(tomllib.loads(text), "package", "name")  # a bare [workspace] names nothing


def _pyproject(text: str, path: str) -> object:
    doc = tomllib.loads(text)
    return _table(doc, "project", "name") or _table(doc, "tool", "poetry", "name")


_SETUP_CFG = re.compile(r"^\[metadata\][^\[]*?^name\s*=\s*(\S+)", re.M | re.S)
_SETUP_PY = re.compile(r"\bsetup\s*\([^)]*?\bname\s*=\s*['\"]([^'\"]+)['\"]", re.S)
_GO_MOD = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)
_GRADLE_ROOT = re.compile(r"rootProject\.name\s*=\s*['\"]([^'\"]+)['\"]")
_SWIFT = re.compile(r"\bPackage\s*\(\s*name\s*:\s*\"([^\"]+)\"")


def _match(pattern: re.Pattern[str]) -> Callable[[str, str], object]:
    def read(text: str, path: str) -> object:
        m = pattern.search(text)
        return m.group(1) if m else None

    return read


def _gradle_settings(text: str, path: str) -> object:
    m = _GRADLE_ROOT.search(text)
    return m.group(1) if m else posixpath.basename(posixpath.dirname(path))


def _gradle_build(text: str, path: str) -> object:
    return posixpath.basename(posixpath.dirname(path))  # Gradle names a project after its folder


def _maven(text: str, path: str) -> object:
    root = ET.fromstring(text)
    ns = root.tag[: root.tag.index("}") + 1] if root.tag.startswith("{") else ""
    found = root.find(f"{ns}artifactId")  # the project's own, not its <parent>'s
    return found.text if found is not None else None


_READERS: dict[str, Callable[[str, str], object]] = {
    "package.json": _npm,
    "Cargo.toml": _cargo,
    "pyproject.toml": _pyproject,
    "setup.cfg": _match(_SETUP_CFG),
    "setup.py": _match(_SETUP_PY),
    "go.mod": _match(_GO_MOD),
    "settings.gradle.kts": _gradle_settings,
    "settings.gradle": _gradle_settings,
    "build.gradle.kts": _gradle_build,
    "build.gradle": _gradle_build,
    "pom.xml": _maven,
    "Package.swift": _match(_SWIFT),
}
_RANK = {name: i for i, name in enumerate(MANIFESTS)}
