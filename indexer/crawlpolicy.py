"""Which files a crawl indexes, and with which chunker (monodex-crawl.json, strictly validated)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.globs import GlobError, compile_glob

from monodex import jsonfile
from monodex.paths import Paths
from monodex.validate import Where, integer, obj, string, string_list

STRATEGIES = ("typescript", "markdown", "lineBased")
REPO_FILE = "monodex-crawl.json"
# Generated bundles and data dumps are rarely what anyone searches for; 1 MiB keeps them out.
DEFAULT_MAX_FILE_BYTES = 1 << 20

BUILTIN: dict[str, Any] = {
    "version": 1,
    "fileTypes": {
        ".ts": "typescript",
        ".tsx": "typescript",
        ".md": "markdown",
        ".yml": "lineBased",
        ".yaml": "lineBased",
        ".txt": "lineBased",
        ".css": "lineBased",
        ".scss": "lineBased",
    },
    "patternsToExclude": [
        "node_modules/",
        "dist/",
        "build/",
        "lib/",
        "lib-commonjs/",
        "lib-esm/",
        "lib-esnext/",
        "lib-amd/",
        "lib-dts/",
        "temp/",
        ".cache/",
        ".rush/temp/",
        "common/temp/",
        "common/deploy/",
        ".docusaurus/",
        "**/*.snap",
        "**/*.test.ts",
        "**/*.spec.ts",
        "**/*.test.tsx",
        "**/*.spec.tsx",
        "**/*.js",
        "**/*.jsx",
        "**/*.cjs",
        "**/*.mjs",
        "**/*.json",
        "**/package-lock.json",
        "**/pnpm-lock.yaml",
        "**/yarn.lock",
        "**/*.lock",
        "**/*.tsbuildinfo",
    ],
    "patternsToKeep": ["src/", "test/"],
}


@dataclass(frozen=True)
class _Patterns:
    folders: tuple[str, ...]
    globs: tuple[Any, ...]

    def match(self, path: str) -> bool:
        for folder in self.folders:
            if path.startswith(folder) or f"/{folder}" in path:
                return True
        return any(g.match(path) for g in self.globs)


@dataclass(frozen=True)
class CrawlPolicy:
    file_types: dict[str, str]
    exclude: _Patterns
    keep: _Patterns
    max_file_bytes: int
    source: str  # the file it came from, or "built-in"
    raw: dict[str, Any] = field(repr=False)

    def strategy_for(self, path: str) -> str | None:
        best = max((s for s in self.file_types if path.endswith(s)), key=len, default=None)
        return self.file_types[best] if best else None

    def should_crawl(self, path: str) -> bool:
        return self.strategy_for(path) is not None and (self.keep.match(path) or not self.exclude.match(path))

    @property
    def fingerprint(self) -> str:
        return hashlib.sha256(json.dumps(self.raw, sort_keys=True).encode()).hexdigest()


def _patterns(values: list[str], where: Where) -> _Patterns:
    folders, globs = [], []
    for i, p in enumerate(values):
        if p.endswith("/"):
            folders.append(p)
            continue
        try:
            globs.append(compile_glob(p))
        except GlobError as exc:
            raise (where / i).fail(str(exc), "fix the pattern (globs: * ** ? [abc] {a,b})") from None
    return _Patterns(tuple(folders), tuple(globs))


def parse(raw: Any, source: str) -> CrawlPolicy:
    top = Where(source)
    d = obj(
        raw,
        top,
        required=("version", "fileTypes", "patternsToExclude", "patternsToKeep"),
        allowed=("maxFileBytes", "$schema"),
    )
    if integer(d["version"], top / "version") != 1:
        raise (top / "version").fail(f"unsupported version {d['version']}", "use 1")
    types = obj(
        d["fileTypes"], top / "fileTypes", allowed=d["fileTypes"] if isinstance(d["fileTypes"], dict) else ()
    )
    for suffix, strategy in types.items():
        w = top / "fileTypes" / suffix
        if not suffix.startswith("."):
            raise w.fail("a file type must start with '.'", f"write '.{suffix}'")
        if string(strategy, w) not in STRATEGIES:
            raise w.fail(f"unknown strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    return CrawlPolicy(
        file_types=dict(types),
        exclude=_patterns(
            string_list(d["patternsToExclude"], top / "patternsToExclude"), top / "patternsToExclude"
        ),
        keep=_patterns(string_list(d["patternsToKeep"], top / "patternsToKeep"), top / "patternsToKeep"),
        max_file_bytes=integer(
            d.get("maxFileBytes", DEFAULT_MAX_FILE_BYTES), top / "maxFileBytes", minimum=1
        ),
        source=source,
        raw=dict(d),
    )


def load(repo_root: Path, paths: Paths) -> CrawlPolicy:
    """Exactly one policy: the repository's, else the user's, else the built-in one."""
    for candidate in (repo_root / REPO_FILE, paths.user_crawl_file):
        if candidate.is_file():
            return parse(jsonfile.read(candidate), str(candidate))
    return parse(BUILTIN, "built-in")
