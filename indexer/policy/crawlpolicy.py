"""Which files a crawl indexes, and with which chunker (monodex-crawl.json, strictly validated)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from monodex.indexer.policy.attributes import NONE as NO_MARKS
from monodex.indexer.policy.attributes import Attributes, Marks
from monodex.indexer.policy.globs import GlobError, compile_glob

from monodex.disk import jsonfile
from monodex.disk.paths import Paths
from monodex.settings.validate import Where, boolean, integer, obj, string, string_list

# The chunkers' registry names (indexer/chunkers: this room may not import it; a test keeps the two equal).
STRATEGIES = (
    *("typescript", "markdown", "lineBased", "javascript", "python", "rust", "go", "java", "kotlin"),
    *("swift", "c", "cpp", "csharp", "bash", "json", "toml", "yaml", "script", "header"),
)
# The file type of a file whose name has no suffix: `"#!": "script"` plans it, and the reader keeps
# it only when its text opens with `#!` (plan.text_problem), chunked as that line's language
# (chunkers/shebang.py).
SCRIPTS, SCRIPT = "#!", "script"
REPO_FILE = "monodex-crawl.json"
# Files over maxFileBytes are skipped (counted as `size`) before they are read. The default,
# 1 MiB, keeps generated bundles and data dumps out; the original had no limit.
DEFAULT_MAX_FILE_BYTES = 1 << 20
# Code in a language with a syntax-aware chunker may be this many times larger: napi-rs's
# scheduler, `crates/async-runtime/src/async_runtime.rs`, is 1.1 MB written by hand (the one
# source file over 1 MiB in the 60 repositories the bench mirrors; the rest were lock files, data
# and vendored bundles). JavaScript is left out (bundles are JavaScript), and so are declaration
# files (`.d.ts`: a compiler's output as often as not); the content rules judge the rest.
CODE_SIZE_FACTOR = 4
_LARGE_CODE = frozenset("typescript python rust go java kotlin swift c cpp csharp".split())
_REQUIRED = ("version", "fileTypes", "patternsToExclude", "patternsToKeep")
_OPTIONAL = ("maxFileBytes", "gitattributes", "$schema", "roots", "extends")
_GLOB_CHARS = "*?[]{}"
# `"extends": "built-in"`: the file's file types and patterns add to the built-in policy's, so
# leaving one folder out does not mean copying its 322 rules (and missing the next release's).
EXTENDS = "built-in"
# The skip reason of a path under none of a policy's `roots`.
OUTSIDE_ROOTS = "outside roots"


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
    ".c": _chunker("c"),
    ".h": _chunker("header"),  # C or C++ by its text (chunkers/header.py)
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"), _chunker("cpp")),
    # a C++ class template's definitions kept apart from its header (`vector.tcc`, `format.inl`)
    **dict.fromkeys((".inl", ".ipp", ".tpp", ".txx", ".tcc"), _chunker("cpp")),
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
            # more languages' source (jq's own builtins are `src/builtin.jq`), shaders, GPU and
            # assembly code, autotools input, templates
            *".jq .awk .tcl .nim .cr .elm .purs .hx .gd .fs .fsi .fsx .vb .pas .adb .ads .mli".split(),
            *".hrl .cljs .cljc .edn .el .lisp .rkt .scm .pyx .pxd .f .f90 .f95 .cabal .bats".split(),
            *".s .S .asm .cu .cuh .glsl .vert .frag .comp .wgsl .hlsl .metal .sv .svh .vhd .vhdl".split(),
            *".ac .am .tex .jinja .jinja2 .j2 .erb .haml .slim .pug .mustache .twig".split(),
            # grammars and lexers (jq's `src/parser.y` and `src/lexer.l` are its language), installer
            # scripts and Windows resources (tauri's NSIS `installer.nsi`, WiX `main.wxs`), build and
            # packaging files (ProGuard rules, podspecs, module maps), templates, tests in a
            # tool's own format (jq's `tests/jq.test`), C include fragments
            *".y .yy .ypp .l .ll .lex .g4 .jison .pest .peg .lalrpop .rl .ebnf .bnf".split(),
            *".nsi .nsh .wxs .wxi .wxl .iss .rc .def .natvis .pro .podspec .modulemap .xcconfig".split(),
            *".mak .cnf .applescript .sublime-syntax .tmpl .tpl .gotmpl .ftl .vm .test .inc".split(),
            # templates a build fills in: CMake package configs, pkg-config files, headers
            # (CLI11's single-header `CLI11.hpp.in`, zlib's `zconf.h.in`), Python's MANIFEST.in
            ".in",
            # build and ownership files known by their whole name
            *"Dockerfile .Dockerfile .dockerfile Containerfile Makefile GNUmakefile Jenkinsfile".split(),
            *"Gemfile Rakefile Podfile Procfile Brewfile Vagrantfile BUILD WORKSPACE CODEOWNERS".split(),
            *"makefile Justfile justfile meson.build BUCK Tiltfile Earthfile SConstruct SConscript".split(),
            # Go's module files, and tools' settings in dotfiles (Rush's common/config/rush/.npmrc
            # and .npmrc-publish, a formatter's rules, the runtime versions CI installs)
            *"go.mod go.work .npmrc .npmrc-publish .yarnrc .prettierrc .babelrc .swcrc .postcssrc".split(),
            *".browserslistrc .nvmrc .node-version .python-version .ruby-version .tool-versions".split(),
            *".clang-format .clang-tidy .cmake-format .swiftformat .swiftlint .coveragerc".split(),
            ".gitmodules",
            # Visual Studio and MSBuild projects (zlib's contrib/vstudio/), a jar's MANIFEST.MF,
            # documentation sites' topics (Writerside, DocC)
            *".vcxproj .vcproj .csproj .fsproj .vbproj .props .targets .sln .MF".split(),
            *".topic .tutorial".split(),
        ),
        "lineBased",
    ),
    # scripts known by their `#!` line (ripgrep's `benchsuite/benchsuite`, tauri's `bundle_dmg`)
    SCRIPTS: SCRIPT,
}

# What the built-in leaves out, each by a marker of what the file is (DESIGN.md: "What git tracks
# is source"): never a folder's name alone, so a tracked `lib/`, `dist/`, `build/` or `target/`
# is indexed (what a build writes is what git ignores; expressjs/express's framework is `lib/`).
# Each pattern names its kind in the skip reason (`vendored: node_modules/`). Content rules
# (generated headers, minified lines: generated.py) and `.gitattributes` markers (attributes.py)
# come on top. `rush.json` and `common/config/rush/*.json` are config a Rush user asks about.
MARKERS: dict[str, str] = {
    # dependencies copied into a repository, by the conventions of GitHub linguist's vendor.yml,
    # plus a committed virtualenv and Yarn's own release, plugins, SDKs and cache
    **dict.fromkeys(
        (
            *"node_modules/ bower_components/ vendor/ vendors/ Vendor/ vendored/ third_party/".split(),
            *"third-party/ thirdparty/ 3rdparty/ 3rd_party/ 3rd-party/ Godeps/_workspace/ Pods/".split(),
            *"Carthage/Build/ .venv/ site-packages/ .yarn/".split(),
        ),
        "vendored",
    ),
    # written by tools: test snapshots, Rush's CHANGELOG.json (rendered into CHANGELOG.md, which
    # is indexed), TypeScript's build info, Yarn Plug'n'Play maps
    **dict.fromkeys(
        "__snapshots__/ **/*.snap **/CHANGELOG.json **/*.tsbuildinfo **/.pnp.cjs **/.pnp.js".split(),
        "generated",
    ),
    # the wrapper scripts `gradle wrapper` and `mvn wrapper` write, the same in every project (14
    # copies of `gradlew` over the bench repositories)
    **dict.fromkeys("**/gradlew **/gradlew.bat **/mvnw **/mvnw.cmd".split(), "generated"),
    **dict.fromkeys("**/*.min.js **/*.min.mjs **/*.min.css **/*.bundle.js **/*.chunk.js".split(), "minified"),
    **dict.fromkeys(
        (
            *"**/package-lock.json **/npm-shrinkwrap.json **/pnpm-lock.yaml **/shrinkwrap.yaml".split(),
            *"**/yarn.lock **/Cargo.lock **/go.sum **/Package.resolved **/packages.lock.json".split(),
            *"**/gradle.lockfile **/.terraform.lock.hcl **/deno.lock **/*.lock".split(),
        ),
        "lock file",
    ),
    # Rush change files: one JSON per pull request, a log of release notes and not code
    "common/changes/": "change file",
}
# What `-linguist-generated` (or `=false`) in .gitattributes waives: linguist counts lock files
# and minified code as generated too.
WAIVED_BY = {"vendored": "vendored", **dict.fromkeys(("generated", "minified", "lock file"), "generated")}

BUILTIN: dict[str, Any] = {
    "version": 1,
    "fileTypes": _FILE_TYPES,
    "patternsToExclude": list(MARKERS),
    # A node_modules/ (or any marker) under src/ or test/ is a test fixture written by hand.
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
        *"node_modules/ dist/ build/ lib/ lib-commonjs/ lib-esm/ lib-esnext/ lib-amd/ lib-dts/".split(),
        *"temp/ .cache/ .rush/temp/ common/temp/ common/deploy/".split(),
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
    old = parse({**BUILTIN_V1, "gitattributes": False}, "built-in (before issue 23)")
    return old if old.fingerprint == fingerprint else None


def _describe(raw: str) -> str:
    """A matched exclude pattern as a skip reason: its kind for a marker (`vendored:
    node_modules/`, `lock file: yarn.lock`), else the pattern (`folder gen/`, `pattern *.x`)."""
    kind = MARKERS.get(raw)
    if kind is not None:
        return f"{kind}: {raw.removeprefix('**/')}"
    return f"folder {raw}" if raw.endswith("/") else f"pattern {raw}"


@dataclass(frozen=True)
class Patterns:
    """Folder patterns (ending in `/`, literal) and globs (`*` also crosses `/`, as in globset)."""

    folders: tuple[str, ...]
    globs: tuple[tuple[str, re.Pattern[str]], ...]  # (as written, compiled)

    def match(self, path: str) -> bool:
        return next(self.matches(path), None) is not None

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

    def matches(self, path: str) -> Iterator[str]:
        """The patterns matching `path`, as written, folders first."""
        folders, globs = self._any
        if (folders is None or not folders.search(path)) and (globs is None or not globs.match(path)):
            return
        for folder in self.folders:
            if path.startswith(folder) or f"/{folder}" in path:
                yield folder
        yield from (raw for raw, g in self.globs if g.match(path))

    def rule(self, path: str, waived: frozenset[str] = frozenset()) -> str | None:
        """The first pattern matching `path` whose kind the repository did not waive, as a skip
        reason names it (`vendored: node_modules/`, `folder target/`), or None."""
        for raw in self.matches(path):
            if WAIVED_BY.get(MARKERS.get(raw, "")) not in waived:
                return _describe(raw)
        return None


def _first(path: str, folders: Iterable[str]) -> float:
    """Where the first of `folders` begins in `path` (0 at its start), or infinity."""
    best = math.inf
    for f in folders:
        if path.startswith(f):
            return 0
        if (i := path.find(f"/{f}")) >= 0:
            best = min(best, i + 1)
    return best


@dataclass(frozen=True)
class CrawlPolicy:
    """A validated policy. Paths are repo-relative with `/`; matching is case-sensitive."""

    file_types: dict[str, str]  # suffix -> strategy
    exclude: Patterns
    keep: Patterns
    max_file_bytes: int
    source: str  # the file it came from, or "built-in"
    canonical: str = field(repr=False)  # sorted JSON of the effective policy
    # Whether the repository's .gitattributes markers count (attributes.py); False for a policy
    # recorded before they did, and for one that says `"gitattributes": false`.
    gitattributes: bool = True
    # The folders crawled (`libraries/`), each ending in `/`; () for the whole repository.
    roots: tuple[str, ...] = ()

    def strategy_for(self, path: str) -> str | None:
        """The chunker for a path: a file type naming the file whole (`Dockerfile`) first, else
        the longest matching suffix (`.d.ts` over `.ts`), else for a name without a dot the `#!`
        file type's (`bin/pn`; a dotfile's name is its suffix)."""
        name = path.rsplit("/", 1)[-1]
        types = self.file_types
        if not name.startswith(".") and name in types:
            return types[name]
        # A suffix key starts with '.' and holds no '/': it can only match from a dot of the
        # name, and the first such dot gives the longest. (Scanning every key per path was
        # 86 ms over rushstack's 5,302 paths with the built-in's 128 types; this is ~5.)
        at = name.find(".")
        if at == -1:
            return types.get(SCRIPTS)  # no suffix: a script's `#!` line may say
        while at != -1:
            strategy = types.get(name[at:])
            if strategy is not None:
                return strategy
            at = name.find(".", at + 1)
        return None

    def byte_limit(self, path: str) -> int:
        """The size over which the file is skipped: maxFileBytes, or CODE_SIZE_FACTOR times it
        for hand-written code in a language with a syntax-aware chunker."""
        if self.strategy_for(path) in _LARGE_CODE and not path.endswith(".d.ts"):
            return self.max_file_bytes * CODE_SIZE_FACTOR
        return self.max_file_bytes

    def should_crawl(self, path: str, attrs: Attributes | None = None) -> bool:
        """matchesFileType and (matchesKeep or not matchesExclude), and no .gitattributes marker
        (when `attrs` are given): keep beats every exclude, but for a vendored folder above it."""
        return self.skip_reason(path, attrs) is None

    def _kept(self, path: str) -> bool:
        """A keep pattern matches, and no vendored folder holds the kept one: a `node_modules/`
        under `test/` is a fixture written by hand, a `src/` under `third_party/zlib/` is zlib's."""
        if not self.keep.match(path):
            return False
        folders, anywhere = self._vendored
        if anywhere is None or not anywhere.search(path):  # the usual case: nothing vendored
            return True
        kept_at = _first(path, self.keep.folders)  # infinity: a glob of yours kept it, as ever
        return kept_at == math.inf or kept_at < _first(path, folders)

    @cached_property
    def _vendored(self) -> tuple[tuple[str, ...], re.Pattern[str] | None]:
        """The vendored folders among the excludes, and a regex finding any of them."""
        folders = tuple(f for f in self.exclude.folders if MARKERS.get(f) == "vendored")
        joined = "|".join(re.escape(f) for f in folders)
        return folders, re.compile(f"(?:^|/)(?:{joined})") if folders else None

    def marks(self, path: str, attrs: Attributes | None) -> Marks:
        """What the repository's .gitattributes say of `path`, when this policy heeds them."""
        return attrs.marks(path) if attrs is not None and self.gitattributes else NO_MARKS

    def skip_reason(self, path: str, attrs: Attributes | None = None) -> str | None:
        """Why the policy leaves `path` out, or None when it is crawled: the exclude rule that
        matched (`vendored: node_modules/`, `folder target/`; a kept path is never excluded, a
        marker's kind the repository waived in .gitattributes does not apply), else `no file
        type for .png`, else the .gitattributes marker (`generated: .gitattributes
        linguist-generated`); first of all `outside roots` for a path under none of the roots."""
        if self.roots and not path.startswith(self.roots):
            return OUTSIDE_ROOTS
        rule = None if self._kept(path) else self.exclude.rule(path)
        if rule is not None and (waived := self.marks(path, attrs).waived):
            rule = self.exclude.rule(path, waived)  # attributes read only for an excluded path
        if rule is not None:
            return rule
        if self.strategy_for(path) is None:
            name = path.rsplit("/", 1)[-1]
            return f"no file type for {'.' + name.rsplit('.', 1)[-1] if '.' in name else name}"
        return self.marks(path, attrs).reason

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
    extends = isinstance(raw, dict) and "extends" in raw
    d = obj(
        raw, top, required=("version", "extends") if extends else _REQUIRED, allowed=(*_REQUIRED, *_OPTIONAL)
    )
    version = integer(d["version"], top / "version")
    if version != 1:
        raise (top / "version").fail(f"unsupported version {version}", "use 1")
    if extends and string(d["extends"], top / "extends") != EXTENDS:
        raise (top / "extends").fail(
            f"cannot extend {d['extends']!r}",
            f"write {EXTENDS!r}: the built-in policy is the one a policy extends",
        )
    base = BUILTIN if extends else {"fileTypes": {}, "patternsToExclude": [], "patternsToKeep": []}
    file_types = {**base["fileTypes"], **_file_types(d.get("fileTypes", {}), top / "fileTypes")}
    exclude = string_list(d.get("patternsToExclude", []), top / "patternsToExclude")
    keep = string_list(d.get("patternsToKeep", []), top / "patternsToKeep")
    # validated as written (an error names the file's own index), then joined to the built-in's
    _patterns(exclude, top / "patternsToExclude"), _patterns(keep, top / "patternsToKeep")
    exclude = list(dict.fromkeys([*base["patternsToExclude"], *exclude]))
    keep = list(dict.fromkeys([*base["patternsToKeep"], *keep]))
    max_bytes = integer(d.get("maxFileBytes", DEFAULT_MAX_FILE_BYTES), top / "maxFileBytes", minimum=1)
    gitattributes = boolean(d.get("gitattributes", True), top / "gitattributes")
    roots = _roots(d["roots"], top / "roots") if "roots" in d else ()
    effective = {
        "version": 1,
        "fileTypes": file_types,
        "patternsToExclude": exclude,
        "patternsToKeep": keep,
        "maxFileBytes": max_bytes,
        # only when true: a policy recorded before the key existed keeps its fingerprint
        **({"gitattributes": True} if gitattributes else {}),
        **({"roots": list(roots)} if roots else {}),
    }
    return CrawlPolicy(
        file_types=file_types,
        exclude=_patterns(exclude, top / "patternsToExclude"),
        keep=_patterns(keep, top / "patternsToKeep"),
        max_file_bytes=max_bytes,
        source=source,
        canonical=json.dumps(effective, sort_keys=True, separators=(",", ":")),
        gitattributes=gitattributes,
        roots=roots,
    )


def _roots(value: Any, where: Where) -> tuple[str, ...]:
    """The folders a crawl is limited to, each as `folder/` from the repository's root."""
    roots = string_list(value, where)
    if not roots:
        raise where.fail(
            "is empty: it would crawl nothing",
            "name the folders to crawl (['libraries/', 'apps/rush/']), or remove the field to crawl "
            "the whole repository",
        )
    out: list[str] = []
    for i, root in enumerate(roots):
        parts = root.rstrip("/").split("/")
        if (
            root.startswith("/")
            or any(ch in root for ch in _GLOB_CHARS)
            or any(p in ("", ".", "..") for p in parts)
        ):
            raise (where / i).fail(
                f"{root!r} is not a folder of the repository",
                "write a folder from the repository's root, without globs: 'libraries/' or 'apps/rush/'",
            )
        out.append("/".join(parts) + "/")
    return tuple(dict.fromkeys(out))


def load(repo_root: Path, paths: Paths) -> CrawlPolicy:
    """Exactly one policy, never merged: the repository's, else the user's, else the built-in one."""
    for candidate in (repo_root / REPO_FILE, paths.user_crawl_file):
        if candidate.is_file():
            return parse(jsonfile.read(candidate), str(candidate))
    return parse(BUILTIN, "built-in")
