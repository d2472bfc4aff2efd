"""Which package a file belongs to: the name in the nearest ancestor folder's manifest
(manifests.py reads a manifest's name).

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

import posixpath
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from monodex.indexer.packages.manifests import ECOSYSTEMS, MANIFESTS, RANK, manifest_name

from monodex.observe import logs

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
            rank, eco = RANK[base], MANIFESTS[base]
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
