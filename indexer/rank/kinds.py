"""What kind of document a hit is (issue 14, 34): a page for people, a config file, a CI
pipeline, a documentation site's code. Each moves a hit up or down by what the question asks:
a page or a config file the question does not ask for goes down, a pipeline a CI question asks
about goes up."""

from __future__ import annotations

import re
from collections import Counter

from monodex.indexer.question import query
from monodex.indexer.question.query import Query
from monodex.indexer.rank import filenames
from monodex.indexer.rank.candidates import Candidate, Weights

from monodex.schema.payload import Key

_PROSE_LANGS = frozenset({"markdown", "txt", "text", "rst", "adoc", "topic", "tutorial"})


# Generated or written documentation: HTML pages of an API reference (jazzy's docs/, a .docset)
# repeat every symbol's name and summary; they are pages, not the code.
_DOC_PAGE = re.compile(r"(^|/)(docs?|documentation|api-docs|_site)/.*\.x?html?$|\.docset/", re.IGNORECASE)


def is_prose(path: str, lang: str | None) -> bool:
    """A page written for people to read (README, guides, UPGRADING, an HTML API reference): it
    describes code in the words of a question, so it matches "where is X done" questions it
    cannot answer."""
    if _DOC_PAGE.search(path):
        return True
    if lang == "text" and "." not in path.rsplit("/", 1)[-1].lstrip("."):
        # known by its whole name (Dockerfile, Makefile, a settings dotfile) or its `#!` line
        return False
    if lang is not None:
        return lang in _PROSE_LANGS
    return path.lower().endswith((".md", ".mdx", ".txt", ".rst"))


def apply_docs(cands: list[Candidate], q: Query, w: Weights) -> None:
    if "docs" in q.asks:
        return  # the question asks for the pages
    # a question about how the code works ("how does X work", "where is Y") is answered by the
    # code, which a page describes in the question's words; a change request may edit a page
    # without saying so ("Add mention of why/how we use WRY"): its pages go down less
    if q.question:
        factor, why = w.docs_question, "a prose page, and the question asks about code"
    else:
        factor, why = w.docs, "a prose page, not code"
    for c in cands:
        if is_prose(c.path, c.hit.payload.get("lang")):
            if c.edited and q.may_be_change:
                _edited_page(c, q, w)
                continue
            c.scale("docs", factor, why)
            # listed after every source file, as tests are (ranking.rank); not for a phrase, which
            # may be a change's subject ("release notes for 0.1.12", "community slack name change":
            # the repositories' own histories, 52 of them, R@10 +0.01, neon's +0.07)
            if q.question and not q.phrase and c.role is None:
                c.role = "docs"


def _edited_page(c: Candidate, q: Query, w: Weights) -> None:
    """A page most changes edit (edited.py): a change request edits it too, so it keeps its
    score; a phrase, which may be a change's title or a question, moves it down as a change
    request moves other pages."""
    edits = f"{c.edited:.0%} of the latest changes edited it"
    if q.question:
        c.scale("docs", w.docs, f"a prose page, but {edits}: the phrase may ask for a change")
    else:
        why = f"a prose page, but {edits}: so will this change"
        c.moved.append({"signal": "docs", "change": 0.0, "why": why})


# C, C++ and Objective-C: a header declares what the source file of its name implements.
_HEADER = re.compile(r"\.(h|hh|hpp|hxx)$", re.IGNORECASE)
_IMPLEMENTATION = re.compile(r"\.(c|cc|cpp|cxx|m|mm)$", re.IGNORECASE)
# ... and a header-only library's implementation, kept in headers of their own: CLI11's
# `impl/Option_inl.hpp` for `Option.hpp`, spdlog's `logger-inl.h`, fmt's `format-inl.h`, and the
# `.inl` / `.ipp` / `.tcc` files a template library includes at its headers' ends
_INLINE = re.compile(r"[-_]inl\.(h|hh|hpp|hxx)$|\.(inl|ipp|tpp|txx|tcc)$", re.IGNORECASE)


def _stem(path: str) -> str:
    return re.sub(r"[-_]inl$", "", path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower())


def _implements(path: str) -> bool:
    return _IMPLEMENTATION.search(path) is not None or _INLINE.search(path) is not None


def _chunks(c: Candidate) -> int:
    return int(c.hit.payload.get(Key.CHUNK_COUNT) or 0)


# A question that asks where a thing is declared, or how its data is laid out, asks for the
# declaration: zlib's `deflate.h` defines the compressor's state, jq's `bytecode.h` a compiled
# function's layout.
_DECLARATION = re.compile(
    r"\b(defined|declared?|declares|declarations?|layouts?|structs?|structures?)\b", re.IGNORECASE
)


def apply_headers(cands: list[Candidate], q: Query, w: Weights) -> None:
    """For a question about the code (not a phrase, not one name), a header whose implementation
    is among the candidates scores x `w.header`: the header says the question's words in its
    declarations and their comments (leveldb's `db/db_impl.h`, `table/filter_block.h`), the
    source file of its name does the thing (`db/db_impl.cc`; in any folder: `include/leveldb/
    table.h` and `table/table.cc`). In a header-only library, whose implementation is a header
    too (`impl/Option_inl.hpp` for `Option.hpp`), the header goes right below it when it scores
    at least x `w.header` of the header's. A header with as many chunks as its source file or
    more is the code itself (fmt's `include/fmt/format.h` beside its small `src/format.cc`): it
    keeps its score. A question that asks for a declaration or a layout (`_DECLARATION`) keeps headers as
    they are."""
    if w.header == 1.0 or not q.question or q.phrase or q.is_symbol or _DECLARATION.search(q.text):
        return
    longest: dict[str, tuple[int, str]] = {}
    best: dict[str, float] = {}
    for c in cands:
        if _implements(c.path):
            stem = _stem(c.path)
            longest[stem] = max(longest.get(stem, (0, "")), (_chunks(c), c.path))
            best[c.path] = max(best.get(c.path, 0.0), c.score)
    if not longest:
        return
    for c in cands:
        if _HEADER.search(c.path) and not _implements(c.path):
            size, source = longest.get(_stem(c.path), (0, ""))
            if _chunks(c) < size:
                why = f"a header, and {source} implements it"
                if not _INLINE.search(source):
                    c.scale("header", w.header, why)
                elif w.header * c.score <= best[source] < c.score:
                    # A header-only library's answer is often both files (the class, its code):
                    # the header goes right below its implementation, not below the files
                    # between them (CLI11 and spdlog: 7 questions better, none worse; at x0.5
                    # spdlog's base class fell from 1st to 8th for "where is the base class ...")
                    c.scale("header", best[source] * 0.999 / c.score, why)


# Settings, not code: also build rules and settings in other formats (moshi's ProGuard/R8 rules
# `META-INF/proguard/moshi.pro` said every word of a question about qualifier annotations).
_CONFIG_LANGS = frozenset({"json", "yaml", "toml", "pro", "properties", "ini", "cfg", "conf"})
# Package manifests list what a change adds (a dependency, a feature flag): answers like code.
_MANIFESTS = frozenset({"package.json", "cargo.toml", "pyproject.toml", "go.mod", "setup.cfg"})


# CI pipeline definitions are YAML, yet they hold the commands a build runs: a question about CI
# names them as it would name a file (the original line chunker's index ranked them as text).
_PIPELINES = re.compile(
    r"(^|/)(\.github/workflows|\.circleci|\.buildkite|azure-pipelines|\.azure-pipelines)/"
    r"|(^|/)(\.gitlab-ci|azure-pipelines[^/]*|bitbucket-pipelines|\.travis)\.ya?ml$",
    re.IGNORECASE,
)


def _asks_about_ci(text: str) -> bool:
    return "ci" in query.read(text).asks


def apply_ci(cands: list[Candidate], q: Query, w: Weights) -> None:
    """A question about CI (`ci: pin zig`, "the release workflow") is answered by a pipeline's
    definition: each gains `pipeline` x the best score."""
    if "ci" not in q.asks or not w.pipeline:
        return
    top = max((c.score for c in cands), default=0.0)
    for c in cands:
        if _PIPELINES.search(c.path):
            c.add("pipeline", w.pipeline * top, "a CI pipeline, and the query asks about CI")


# A build's own files (autotools, make, CMake, Meson, Bazel, Gradle, MSBuild): settings of the
# build in the words of the code they build (jq's configure.ac and Makefile.am, moshi's
# build.gradle.kts: 52 times in the first ten of our questions, never an answer), config like the
# formats above unless the query is about building.
_BUILD_FILES = re.compile(
    r"(^|/)(configure\.(ac|in)|(GNU)?[Mm]akefile(\.am|\.in)?|CMakeLists\.txt|meson\.build|[^/]+\.cmake"
    r"|BUILD(\.bazel)?|WORKSPACE(\.bazel)?|(build|settings)\.gradle(\.kts)?|SConstruct"
    r"|[^/]+\.(vcx?proj|csproj|fsproj|vbproj|sln|props|targets))$"
)
# ("make" and "flags" alone are everyday words: "make every field optional", "the debug flags")
_BUILD_WORDS = re.compile(
    r"\b(build\w*|cmake|makefiles?|gradle|bazel|meson|autoconf|automake|autotools|configure"
    r"|compil\w+|link\w*|install\w*)\b",
    re.IGNORECASE,
)


def _is_dotfile(name: str, lang: object) -> bool:
    """A tool's settings dotfile (`.editorconfig`, `.npmrc`): stored as `text`, or under its name
    by a monodex before 2026-12-06."""
    return name.startswith(".") and "." not in name[1:] and lang in ("text", name[1:])


def _is_config(c: Candidate, name: str, building: bool, asked: bool) -> bool:
    lang = c.hit.payload.get("lang")
    if lang in _CONFIG_LANGS or _is_dotfile(name, lang):
        # a manifest answers a change as code does, not a question about the code (serde_json's
        # `[features]` ranked 2nd for how a struct becomes a JSON tree; tune: 6 better, 1 worse)
        return name not in _MANIFESTS or asked
    return not building and _BUILD_FILES.search(c.path) is not None


def apply_config(cands: list[Candidate], text: str, w: Weights) -> None:
    """Config files describe settings in the words of a question (schemas, commented JSON) and
    match "how does X work" questions the code answers; one the query names (`rush.json`,
    `Cargo.toml`, "renovate" for renovate.json) keeps its place."""
    q = query.read(text)
    if w.config == 1.0:
        return
    request = q.may_be_change
    lowered = text.lower()
    ci = _asks_about_ci(text)
    said = {c.path: filenames.name_coverage(q.words, c.path) for c in cands}
    named: Counter[str] = Counter(word for _, words in said.values() for word in words)
    building = _BUILD_WORDS.search(text) is not None
    for c in cands:
        name = c.path.rsplit("/", 1)[-1].lower()
        if not _is_config(c, name, building, q.question):
            continue
        if ci and _PIPELINES.search(c.path):
            continue
        share, words = said[c.path]
        # every word of its name said, and those words name few files: "renovate" names renovate.json;
        # a pipeline's name of two words or more is a name as a question spells it ("Fix an issue with
        # playground build": playground-build.yaml), however many files say "build"
        pipeline = len(words) >= 2 and _PIPELINES.search(c.path) is not None
        by_name = share == 1 and (pipeline or all(named[word] <= 2 for word in words))
        if name not in lowered and not by_name and not (request and _changed_by_such(c, q, w)):
            c.scale("config", w.config, "a config file the query does not name")
            # moved down DEMOTION places for a question; a change edits config as often as code (the
            # 52 bench histories, R@10 +0.008; tauri's pull requests +0.064), but for a schema
            if w.config_down and (q.question and not q.phrase or _DESCRIBES_CONFIG.search(c.path)):
                c.role = "config"


# A config format's schema and the copies a scaffolder writes (rush-lib's `src/schemas/*.schema.json`,
# `assets/rush-init/`, tauri-cli's `templates/`) describe config files; they change with the code
# that reads them, which is the answer.
_DESCRIBES_CONFIG = re.compile(r"(^|/)(schemas?|assets|templates?)/|\.schema\.json$", re.IGNORECASE)


# ... by at least this many of those commits: once is no pattern (in sparo's short history one
# commit with "subspace" put rush.json first for a request about code; tune halves level at 0 and 2)
PAST_COMMITS = 2


def _changed_by_such(c: Candidate, q: Query, w: Weights) -> bool:
    """Whether earlier commits in a change request's words changed this config file, by the past
    words' list (read/joined.py lifts its files): high on it (`config_past` of its first's lift or
    more), it is what such changes edit (tauri's covector `.changes/config.json`, changed by every
    release fix), not a file that merely says the request's words. A dependency update is
    answered by its manifests (named.apply_dependency), not by the workflows that install them."""
    if not w.config_past or q.dependencies or c.past_commits < PAST_COMMITS:
        return False
    if _DESCRIBES_CONFIG.search(c.path):
        return False
    enough = w.config_past * w.past_words_request
    return any(m["signal"] == "past-words" and m["change"] >= enough for m in c.moved)


# The code of a documentation website (a Docusaurus `website/` folder, its config and sidebars):
# it lists every page title and command name, so it matches questions the product's code answers.
# A `docs/` folder's code is that site's too (zod's Next.js `packages/docs/`, Sphinx's `docs/conf.py`,
# jq's `docs/build_website.py`), unless it sits in the product's sources (`src/docs/`: a `docs`
# command) or is one package's `doc/` (cobra's doc generator is its product). So is a folder named
# for documentation (Exposed's `documentation-website/` and its Kotlin snippets, a DocC catalog).
_SITE = re.compile(
    r"(^|/)(website|docs|documentation([-_.][\w-]*)?)/|(^|/)(docusaurus\.config|sidebars)\.[cm]?[jt]sx?$",
    re.IGNORECASE,
)
_SOURCES_DOCS = re.compile(r"(^|/)(src|lib)/(.*/)?docs/")


def is_site(path: str) -> bool:
    """Whether `path` (a file, or a folder ending in `/`) is a documentation site's, not the product's."""
    return _SITE.search(path) is not None and not _SOURCES_DOCS.search(path)


def apply_site(cands: list[Candidate], text: str, w: Weights) -> None:
    """A documentation site's scripts are read like its pages (prose, x `docs`'s order): one the
    query names (`sidebars.js`, "the website") keeps its place."""
    if w.site == 1.0:
        return
    lowered = text.lower()
    if "website" in lowered:
        return
    for c in cands:
        stem = c.path.rsplit("/", 1)[-1].lower().split(".")[0]
        if is_site(c.path) and not is_prose(c.path, c.hit.payload.get("lang")) and stem not in lowered:
            c.scale("site", w.site, "a documentation site's code, not the product's")


# A repository's own tooling: the release, check, fuzzing and code-generation scripts at its root
# (`scripts/`, `tools/`, `xtask/`, Rush's `common/scripts/`) or at a workspace package's
# (`packages/x/scripts/`). They spell the product's names (zod's `scripts/compile-fuzz.ts` builds
# every schema type) but a question about how the product works is not about them: of 1,622
# hand-written questions one had an answer there, and it asked for "the tooling".
_TOOLING = re.compile(
    r"^(scripts?|tools?|tooling|hack|xtask|\.scripts)/|^common/scripts/"
    r"|^(packages|apps|libraries|libs|crates|plugins|modules)/[^/]+/scripts/"
)
# ... unless the question is about them
_TOOLING_ASKED = re.compile(
    r"\b(scripts?|tool(s|ing)?|release[sd]?|publish(ing|ed)?|bump|ci|fuzz(ing|er)?|lint(ing|er)?|codegen)\b",
    re.I,
)


def apply_tooling(cands: list[Candidate], q: Query, w: Weights) -> None:
    """A question's hit in the repository's tooling scores x `tooling`; one the question asks
    about (a script, a tool, releasing, fuzzing) or names keeps its place."""
    if w.tooling == 1.0 or not q.question or q.is_symbol or _TOOLING_ASKED.search(q.text):
        return
    lowered = q.text.lower()
    for c in cands:
        if not _TOOLING.search(c.path):
            continue
        stem = c.path.rsplit("/", 1)[-1].lower().split(".")[0]
        if stem in lowered:
            continue
        c.scale("tooling", w.tooling, "the repository's tooling, and the question asks about the product")
        if w.tooling_down and not q.phrase and c.role is None:
            c.role = "tooling"


# A folder named for a version (`v3`, `v1.8`): zod's src/v3/ beside src/v4/, a manual's v1.7/
# beside v1.8/. The newest is what the repository develops; an older one is a copy kept for
# users of that version, in the same words.
_VERSION = re.compile(r"^v(\d+)(?:\.(\d+))?$")


def apply_older(cands: list[Candidate], text: str, w: Weights) -> None:
    """A hit under an older version's folder when a newer one of the same parent folder is among
    the candidates (`src/v3/types.ts` beside `src/v4/...`) scores x `older`; when the query names
    a version ("v3", "version 3"), the copies of the other versions do instead."""
    if w.older == 1.0:
        return
    newest: dict[str, tuple[tuple[int, int], str]] = {}  # parent folder -> its newest version
    versioned: list[tuple[Candidate, str, tuple[int, int]]] = []
    for c in cands:
        parts = c.path.split("/")
        for i, part in enumerate(parts[:-1]):
            if m := _VERSION.match(part):
                parent, version = "/".join(parts[:i]), (int(m.group(1)), int(m.group(2) or 0))
                versioned.append((c, parent, version))
                newest[parent] = max(newest.get(parent, (version, part)), (version, part))
                break
    lowered = text.lower()
    asked: dict[str, set[tuple[int, int]]] = {parent: set() for parent in newest}
    for _, parent, version in versioned:
        if re.search(rf"\b(?:v|version\s+){version[0]}\b", lowered):
            asked[parent].add(version)
    for c, parent, version in versioned:
        latest, name = newest[parent]
        if asked[parent]:  # "in the version 3 code": the other versions' copies are not what is asked
            if version not in asked[parent]:
                wanted = ", ".join(f"v{v[0]}" for v in sorted(asked[parent]))
                c.scale("older", w.older, f"another version's copy: the query asks for {wanted}")
        elif version < latest:
            c.scale("older", w.older, f"an older version's copy: {name} is beside it")
