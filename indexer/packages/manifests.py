"""A package manifest and the name it declares, in every ecosystem that shares a monorepo with
TypeScript: package.json `name`, Cargo.toml `[package] name`, pyproject.toml `[project] name`
(setup.cfg `[metadata] name`, a literal `name=` in setup.py), go.mod `module`, settings.gradle
`rootProject.name` or the folder of a build.gradle, pom.xml `artifactId`, Package.swift `name:`.
A manifest that does not parse or names nothing names None (debug log). Which package a file
belongs to is lookup.py's."""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable

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
# Within one ecosystem, the manifest listed first in MANIFESTS wins a folder.
RANK = {name: i for i, name in enumerate(MANIFESTS)}
