"""Which files a crawl indexes, and with which chunker (monodex-crawl.json, strictly validated)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.git.globs import GlobError, compile_glob

from monodex import jsonfile
from monodex.paths import Paths
from monodex.validate import Where, integer, obj, string, string_list

# The chunkers' registry names (indexer/chunkers: this room may not import it; a test keeps the two equal).
STRATEGIES = (
    *("typescript", "markdown", "lineBased", "javascript", "python", "rust", "go", "java", "kotlin"),
    *("swift", "c", "cpp", "csharp", "bash", "json", "toml", "yaml"),
)
REPO_FILE = "monodex-crawl.json"
# Files over maxFileBytes are skipped (counted as `size`) before they are read. The default,
# 1 MiB, keeps generated bundles and data dumps out; the original had no limit.
DEFAULT_MAX_FILE_BYTES = 1 << 20
_REQUIRED = ("version", "fileTypes", "patternsToExclude", "patternsToKeep")
_GLOB_CHARS = "*?[]{}"

# The original's embedded default (reference §1.2), in the same format as the files.
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
class Patterns:
    """Folder patterns (ending in `/`, literal) and globs (`*` also crosses `/`, as in globset)."""

    folders: tuple[str, ...]
    globs: tuple[re.Pattern[str], ...]

    def match(self, path: str) -> bool:
        for folder in self.folders:
            if path.startswith(folder) or f"/{folder}" in path:
                return True
        return any(g.match(path) for g in self.globs)


@dataclass(frozen=True)
class CrawlPolicy:
    """A validated policy. Paths are repo-relative with `/`; matching is case-sensitive."""

    file_types: dict[str, str]  # suffix -> strategy
    exclude: Patterns
    keep: Patterns
    max_file_bytes: int
    source: str  # the file it came from, or "built-in"
    canonical: str = field(repr=False)  # sorted JSON of the effective policy

    def strategy_for(self, path: str) -> str | None:
        """The chunker for a path: the longest matching suffix wins (`.d.ts` over `.ts`)."""
        best = max((s for s in self.file_types if path.endswith(s)), key=len, default=None)
        return self.file_types[best] if best else None

    def should_crawl(self, path: str) -> bool:
        """matchesFileType and (matchesKeep or not matchesExclude): keep beats every exclude."""
        return self.strategy_for(path) is not None and (self.keep.match(path) or not self.exclude.match(path))

    @property
    def fingerprint(self) -> str:
        """sha256 of the canonical policy: equal for equal effective policies, whatever the file."""
        return hashlib.sha256(self.canonical.encode()).hexdigest()


def _patterns(values: list[str], where: Where) -> Patterns:
    folders, globs = [], []
    for i, p in enumerate(values):
        if p.startswith("/"):
            raise (where / i).fail(
                f"{p!r} starts with '/'", f"paths are repo-relative: write {p.lstrip('/')!r}"
            )
        if p.endswith("/"):
            if any(ch in p for ch in _GLOB_CHARS):
                raise (where / i).fail(
                    f"folder pattern {p!r} contains glob characters",
                    "folder patterns are literal and match at any depth: write e.g. 'temp/'",
                )
            folders.append(p)
            continue
        try:
            globs.append(compile_glob(p))
        except GlobError as exc:
            raise (where / i).fail(str(exc), "fix the pattern (globs: * ** ? [abc] {a,b})") from None
    return Patterns(tuple(folders), tuple(globs))


def _file_types(value: Any, where: Where) -> dict[str, str]:
    types = obj(value, where, allowed=value if isinstance(value, dict) else ())
    for suffix, strategy in types.items():
        w = where / suffix
        if not suffix.startswith(".") or len(suffix) < 2 or "/" in suffix:
            raise w.fail(
                "a file type must start with '.' and name a suffix", f"write '.{suffix.strip('./')}'"
            )
        if string(strategy, w) not in STRATEGIES:
            raise w.fail(f"unknown strategy {strategy!r}", f"use one of {', '.join(STRATEGIES)}")
    return dict(types)


def parse(raw: Any, source: str) -> CrawlPolicy:
    """Validate a policy document (version 1); UsageError names the file, field and fix."""
    top = Where(source)
    d = obj(raw, top, required=_REQUIRED, allowed=("maxFileBytes", "$schema"))
    version = integer(d["version"], top / "version")
    if version != 1:
        raise (top / "version").fail(f"unsupported version {version}", "use 1")
    file_types = _file_types(d["fileTypes"], top / "fileTypes")
    exclude = string_list(d["patternsToExclude"], top / "patternsToExclude")
    keep = string_list(d["patternsToKeep"], top / "patternsToKeep")
    max_bytes = integer(d.get("maxFileBytes", DEFAULT_MAX_FILE_BYTES), top / "maxFileBytes", minimum=1)
    effective = {
        "version": 1,
        "fileTypes": file_types,
        "patternsToExclude": exclude,
        "patternsToKeep": keep,
        "maxFileBytes": max_bytes,
    }
    return CrawlPolicy(
        file_types=file_types,
        exclude=_patterns(exclude, top / "patternsToExclude"),
        keep=_patterns(keep, top / "patternsToKeep"),
        max_file_bytes=max_bytes,
        source=source,
        canonical=json.dumps(effective, sort_keys=True, separators=(",", ":")),
    )


def load(repo_root: Path, paths: Paths) -> CrawlPolicy:
    """Exactly one policy, never merged: the repository's, else the user's, else the built-in one."""
    for candidate in (repo_root / REPO_FILE, paths.user_crawl_file):
        if candidate.is_file():
            return parse(jsonfile.read(candidate), str(candidate))
    return parse(BUILTIN, "built-in")
