"""Which files a crawl indexes, and with which chunker (monodex-crawl.json, strictly validated)."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from monodex.indexer.policy.globs import GlobError, compile_glob

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


def _chunker(name: str) -> str:
    """A language's syntax-aware strategy once it is registered, else the line chunker."""
    return name if name in STRATEGIES else "lineBased"


# Suffix -> strategy of the built-in policy: TypeScript and Markdown as in the original, then
# JavaScript, config (JSON, TOML, YAML) and the languages that share monorepos with TypeScript.
_FILE_TYPES = {
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".md": "markdown",
    ".txt": "lineBased",
    ".css": "lineBased",
    ".scss": "lineBased",
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), _chunker("javascript")),
    ".json": _chunker("json"),
    ".toml": _chunker("toml"),
    **dict.fromkeys((".yml", ".yaml"), _chunker("yaml")),
    **dict.fromkeys((".py", ".pyi"), _chunker("python")),
    ".rs": _chunker("rust"),
    ".go": _chunker("go"),
    ".java": _chunker("java"),
    **dict.fromkeys((".kt", ".kts"), _chunker("kotlin")),
    ".swift": _chunker("swift"),
    **dict.fromkeys((".c", ".h"), _chunker("c")),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"), _chunker("cpp")),
    ".cs": _chunker("csharp"),
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh"), _chunker("bash")),
    # Other text a monorepo holds, by lines: markup and templates, styles, schemas and queries,
    # build files, settings, scripts and the languages without a chunker here. Left out: text
    # that is data or boilerplate rather than code (.svg, .snap, .map, .csv, LICENSE, .gitignore
    # and .npmignore, of which rushstack has 100+ near-identical copies).
    **dict.fromkeys((".mdx", ".mdc", ".markdown"), "markdown"),
    **dict.fromkeys((".jsonc", ".json5", ".code-workspace", ".resjson"), _chunker("json")),
    **dict.fromkeys(
        (
            *".html .htm .vue .svelte .astro .xml .xsd .xsl .resx .plist .hbs .ejs .njk .liquid".split(),
            *".rst .adoc .sass .less .styl .sql .graphql .gql .proto .prisma .thrift".split(),
            *".ini .cfg .conf .properties .editorconfig .gradle .groovy .bzl .bazel .nix .tf .hcl".split(),
            *".cmake .mk .ps1 .psm1 .bat .cmd .fish .rb .rake .gemspec .php .lua .scala .sbt".split(),
            *".dart .ex .exs .erl .hs .ml .clj .r .jl .pl .pm .m .mm .zig .sol .vim .patch".split(),
            # build and ownership files known by their whole name
            *"Dockerfile .Dockerfile .dockerfile Containerfile Makefile GNUmakefile Jenkinsfile".split(),
            *"Gemfile Rakefile Podfile Procfile Brewfile Vagrantfile BUILD WORKSPACE CODEOWNERS".split(),
        ),
        "lineBased",
    ),
}

# Build output, dependencies and caches of each ecosystem; lock files, generated and recorded
# files. `rush.json` and `common/config/rush/*.json` are config a Rush user asks about: indexed.
_EXCLUDE = [
    # JavaScript / TypeScript (the original's list, less its blanket *.js and *.json); Rush change
    # files are one JSON per PR, a log and not code
    *"node_modules/ dist/ build/ lib/ lib-commonjs/ lib-esm/ lib-esnext/ lib-amd/ lib-dts/".split(),
    *"temp/ .cache/ .rush/temp/ common/temp/ common/deploy/ common/changes/ .docusaurus/".split(),
    *".next/ .nuxt/ .turbo/ .yarn/ coverage/ __snapshots__/".split(),
    # Rust, Python, Go, JVM, Swift / iOS, .NET
    *"target/ __pycache__/ .venv/ venv/ .tox/ .mypy_cache/ .pytest_cache/ .ruff_cache/".split(),
    *"vendor/ .gradle/ Pods/ Carthage/ DerivedData/ .build/ .swiftpm/ obj/".split(),
    # files: snapshots, tests outside src/ and test/ (as the original), bundles, lock files
    *"**/*.snap **/*.test.ts **/*.spec.ts **/*.test.tsx **/*.spec.tsx".split(),
    *"**/*.test.js **/*.spec.js **/*.test.mjs **/*.spec.mjs".split(),
    *"**/*.min.js **/*.min.mjs **/*.min.css **/*.bundle.js **/*.chunk.js".split(),
    *"**/*.lock **/package-lock.json **/npm-shrinkwrap.json **/pnpm-lock.yaml **/yarn.lock".split(),
    *"**/go.sum **/Package.resolved **/CHANGELOG.json **/*.tsbuildinfo".split(),
]

BUILTIN: dict[str, Any] = {
    "version": 1,
    "fileTypes": _FILE_TYPES,
    "patternsToExclude": _EXCLUDE,
    "patternsToKeep": ["src/", "test/"],
}

# The built-in policy before issue 23 (the original's default): labels crawled with it recorded
# only its fingerprint; knowing it lets their next refresh add just the files the new one adds.
BUILTIN_V1: dict[str, Any] = {
    "version": 1,
    "fileTypes": {
        **dict.fromkeys((".ts", ".tsx"), "typescript"),
        ".md": "markdown",
        **dict.fromkeys((".yml", ".yaml", ".txt", ".css", ".scss"), "lineBased"),
    },
    "patternsToExclude": [
        *_EXCLUDE[:14],  # node_modules/ ... common/deploy/
        ".docusaurus/",
        "**/*.snap",
        *("**/*.test.ts", "**/*.spec.ts", "**/*.test.tsx", "**/*.spec.tsx"),
        *("**/*.js", "**/*.jsx", "**/*.cjs", "**/*.mjs", "**/*.json"),
        *("**/package-lock.json", "**/pnpm-lock.yaml", "**/yarn.lock", "**/*.lock", "**/*.tsbuildinfo"),
    ],
    "patternsToKeep": ["src/", "test/"],
}


def previous_builtin(fingerprint: str) -> CrawlPolicy | None:
    """An earlier built-in policy with this fingerprint, or None."""
    old = parse(BUILTIN_V1, "built-in (before issue 23)")
    return old if old.fingerprint == fingerprint else None


@dataclass(frozen=True)
class Patterns:
    """Folder patterns (ending in `/`, literal) and globs (`*` also crosses `/`, as in globset)."""

    folders: tuple[str, ...]
    globs: tuple[tuple[str, re.Pattern[str]], ...]  # (as written, compiled)

    def match(self, path: str) -> bool:
        return self.rule(path) is not None

    @cached_property
    def _any(self) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
        """A regex for any folder (searched) and one for any glob (matched, each is ^...$): most
        paths match no pattern, and these say so in two calls instead of ~70 (the built-in's)."""
        folders = "|".join(re.escape(f) for f in self.folders)
        globs = "|".join(f"(?:{g.pattern})" for _, g in self.globs)
        return (
            re.compile(f"(?:^|/)(?:{folders})") if folders else None,
            re.compile(globs, re.DOTALL) if globs else None,
        )

    def rule(self, path: str) -> str | None:
        """The first pattern matching `path`, as a skip reason names it (`folder target/`,
        `pattern **/*.lock`), or None."""
        folders, globs = self._any
        if (folders is None or not folders.search(path)) and (globs is None or not globs.match(path)):
            return None
        for folder in self.folders:
            if path.startswith(folder) or f"/{folder}" in path:
                return f"folder {folder}"
        return next((f"pattern {raw}" for raw, g in self.globs if g.match(path)), None)


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
        """The chunker for a path: a file type naming the file whole (`Dockerfile`) first, else
        the longest matching suffix (`.d.ts` over `.ts`)."""
        name = path.rsplit("/", 1)[-1]
        types = self.file_types
        if not name.startswith(".") and name in types:
            return types[name]
        # A suffix key starts with '.' and holds no '/': it can only match from a dot of the
        # name, and the first such dot gives the longest. (Scanning every key per path was
        # 86 ms over rushstack's 5,302 paths with the built-in's 128 types; this is ~5.)
        at = name.find(".")
        while at != -1:
            strategy = types.get(name[at:])
            if strategy is not None:
                return strategy
            at = name.find(".", at + 1)
        return None

    def should_crawl(self, path: str) -> bool:
        """matchesFileType and (matchesKeep or not matchesExclude): keep beats every exclude."""
        return self.skip_reason(path) is None

    def skip_reason(self, path: str) -> str | None:
        """Why the policy leaves `path` out, or None when it is crawled: the exclude rule that
        matched (`folder target/`, `pattern **/*.lock`; a kept path is never excluded), else
        `no file type for .png`."""
        rule = None if self.keep.match(path) else self.exclude.rule(path)
        if rule is None and self.strategy_for(path) is None:
            name = path.rsplit("/", 1)[-1]
            return f"no file type for {'.' + name.rsplit('.', 1)[-1] if '.' in name else name}"
        return rule

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
            globs.append((p, compile_glob(p)))
        except GlobError as exc:
            raise (where / i).fail(str(exc), "fix the pattern (globs: * ** ? [abc] {a,b})") from None
    return Patterns(tuple(folders), tuple(globs))


def _file_types(value: Any, where: Where) -> dict[str, str]:
    types = obj(value, where, allowed=value if isinstance(value, dict) else ())
    for suffix, strategy in types.items():
        w = where / suffix
        bare = suffix.strip("./ ")
        # "ts" is a file named ts to the matcher, but a suffix missing its dot to whoever wrote it
        if not suffix.startswith(".") and suffix not in _FILE_TYPES and f".{suffix}" in _FILE_TYPES:
            raise w.fail(f"file type {suffix!r} must start with '.' to name a suffix", f"write '.{bare}'")
        if suffix in (".", "") or "/" in suffix or any(ch in suffix for ch in _GLOB_CHARS + " "):
            raise w.fail(
                "a file type must start with '.' and name a suffix ('.ts'), or name a whole file "
                "('Dockerfile')",
                f"write '.{bare}', or a file name without '/', spaces or glob characters",
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
