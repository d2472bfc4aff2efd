"""Ranking signals a monorepo index already holds, applied after the dense and lexical lists are
fused (issue 14): what kind of document a hit is, whether the query names its package, whether it
defines a name the query asks about, and how much of its file matches.

Each signal is a pure function of the candidates and the query; each records what it changed and
why, so `--explain` can show it. The constants are global and few, set by hand on the `tune` half
of bench/eval/ (bench/rank_eval.py) and kept only if the `test` half agreed (docs/benchmarks.md).
No query text or commit message is stored anywhere: everything here is computed per query.
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.store.base import Scored


@dataclass(frozen=True)
class Weights:
    """Multipliers apply to the fused score (a hit's RRF score, 0-0.4 with k 5 and two lists);
    `file_evidence` scales the other matching chunks of a hit's file added to its score."""

    # Set by hand on the tune half of bench/eval/ (sparo and rushstack, bench/rank_eval.py),
    # round values on a plateau; docs/benchmarks.md has what each did on tune and on test.
    docs: float = 0.5  # a prose page (Markdown, text) that is not code: x this
    config: float = 0.5  # a config file (JSON, YAML, TOML; not a manifest) the query does not name: x this
    config_down: bool = True  # and moved down as tests are (ranking.DEMOTION places)
    site: float = 0.5  # a documentation site's code (website/, docusaurus config, sidebars) not named: x this
    definition: float = 1.5  # the chunk or file that defines an identifier the query names: x this
    package: float = 1.3  # a file of a package or project the query names: x this
    file_evidence: float = 0.2  # + this x the sum of the file's next best chunk scores
    file_chunks: float = 2  # how many more chunks of a file count as its evidence
    tested: float = 0.25  # + this x the best score of the file's own test among the candidates
    history: float = 1.0  # + this x how often a lower hit changed with the top ones (cochange.py)


OFF: dict[str, dict[str, Any]] = {
    "docs": {"docs": 1.0},
    "config": {"config": 1.0, "config_down": False},
    "site": {"site": 1.0},
    "definition": {"definition": 1.0},
    "package": {"package": 1.0},
    "file": {"file_evidence": 0.0},
    "tested": {"tested": 0.0},
    "history": {"history": 0.0},
}


def switched_off(w: Weights, names: Iterable[str]) -> Weights:
    for name in names:
        w = dataclasses.replace(w, **OFF[name])
    return w


@dataclass
class Candidate:
    """One fused hit on its way to rank(): `score` starts as the fused score and each signal
    that moves it appends (signal, change, why) to `moved`."""

    hit: Scored
    fused: float
    dense_rank: int | None
    lexical_rank: int | None
    score: float = 0.0
    moved: list[dict[str, Any]] = field(default_factory=list)
    # a secondary role a signal gave it (a config file the query does not name): ranking.py moves
    # it down as it moves tests down; None: its path decides (ranking.role_of)
    role: str | None = None

    def __post_init__(self) -> None:
        self.score = self.fused

    @property
    def path(self) -> str:
        return str(self.hit.payload.get("relative_path", ""))

    def scale(self, signal: str, factor: float, why: str) -> None:
        if factor == 1.0:
            return
        new = self.score * factor
        self.moved.append({"signal": signal, "change": round(new - self.score, 6), "why": why})
        self.score = new

    def add(self, signal: str, amount: float, why: str) -> None:
        if amount == 0:
            return
        self.moved.append({"signal": signal, "change": round(amount, 6), "why": why})
        self.score += amount


def fuse(
    dense: Sequence[Scored],
    lexical: Sequence[Scored],
    *,
    k: int,
    weights: tuple[float, float],
    unranked_dense: str | None = None,
) -> list[Candidate]:
    """Reciprocal rank fusion as Qdrant computes it (weight / (k + 0-based rank), summed over the
    lists), done here so each candidate keeps its rank in each list. A lexical hit whose payload
    has `unranked_dense` true (no dense vector yet) gets its lexical rank for the dense list too."""
    by_id: dict[str, Candidate] = {}
    for which, hits, weight in (("dense", dense, weights[0]), ("lexical", lexical, weights[1])):
        for i, h in enumerate(hits):
            c = by_id.get(h.id)
            if c is None:
                c = by_id[h.id] = Candidate(h, 0.0, None, None)
            c.fused += weight / (k + i)
            if which == "lexical" and unranked_dense and h.payload.get(unranked_dense) is True:
                c.fused += weights[0] / (k + i)
            if which == "dense":
                c.dense_rank = i + 1
            else:
                c.lexical_rank = i + 1
    for c in by_id.values():
        c.score = c.fused
    return list(by_id.values())


# --- document kind ---------------------------------------------------------------------------

_PROSE_LANGS = frozenset({"markdown", "txt", "text", "rst", "adoc"})


def is_prose(path: str, lang: str | None) -> bool:
    """A page written for people to read (README, guides, UPGRADING): it describes code in the
    words of a question, so it matches "where is X done" questions it cannot answer."""
    if lang is not None:
        return lang in _PROSE_LANGS
    return path.lower().endswith((".md", ".mdx", ".txt", ".rst"))


def apply_docs(cands: list[Candidate], w: Weights) -> None:
    for c in cands:
        if is_prose(c.path, c.hit.payload.get("lang")):
            c.scale("docs", w.docs, "a prose page, not code")


_CONFIG_LANGS = frozenset({"json", "yaml", "toml"})
# Package manifests list what a change adds (a dependency, a feature flag): answers like code.
_MANIFESTS = frozenset({"package.json", "cargo.toml", "pyproject.toml", "go.mod"})


# CI pipeline definitions are YAML, yet they hold the commands a build runs: a question about CI
# names them as it would name a file (the original line chunker's index ranked them as text).
_PIPELINES = re.compile(
    r"(^|/)(\.github/workflows|\.circleci|\.buildkite|azure-pipelines|\.azure-pipelines)/"
    r"|(^|/)(\.gitlab-ci|azure-pipelines[^/]*|bitbucket-pipelines|\.travis)\.ya?ml$",
    re.IGNORECASE,
)
_CI_WORDS = frozenset({"ci", "workflow", "workflows", "pipeline", "pipelines"})
_CI_PHRASES = ("continuous integration", "github action")


def _asks_about_ci(text: str) -> bool:
    lowered = text.lower()
    return bool(_CI_WORDS & query_words(text)) or any(p in lowered for p in _CI_PHRASES)


def apply_config(cands: list[Candidate], text: str, w: Weights) -> None:
    """Config files describe settings in the words of a question (schemas, commented JSON) and
    match "how does X work" questions the code answers; one the query names (`rush.json`,
    `Cargo.toml`) keeps its place."""
    if w.config == 1.0:
        return
    lowered = text.lower()
    ci = _asks_about_ci(text)
    for c in cands:
        name = c.path.rsplit("/", 1)[-1].lower()
        if c.hit.payload.get("lang") not in _CONFIG_LANGS or name in _MANIFESTS:
            continue
        if ci and _PIPELINES.search(c.path):
            continue
        if name not in lowered:
            c.scale("config", w.config, "a config file the query does not name")
            if w.config_down:
                c.role = "config"


# The code of a documentation website (a Docusaurus `website/` folder, its config and sidebars):
# it lists every page title and command name, so it matches questions the product's code answers.
_SITE = re.compile(r"(^|/)website/|(^|/)(docusaurus\.config|sidebars)\.[cm]?[jt]sx?$", re.IGNORECASE)


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
        if _SITE.search(c.path) and not is_prose(c.path, c.hit.payload.get("lang")) and stem not in lowered:
            c.scale("site", w.site, "a documentation site's code, not the product's")


# --- package or project named in the query ---------------------------------------------------

_QUERY_WORD = re.compile(r"[@A-Za-z0-9][@A-Za-z0-9_./-]*[A-Za-z0-9]|[A-Za-z0-9]")


def query_words(text: str) -> set[str]:
    """The query's words as written, lowercased, with compounds (`rush-lib`, `@rushstack/heft`)
    whole, trailing punctuation (`heft:`) left out."""
    return {m.group().lower() for m in _QUERY_WORD.finditer(text)}


def package_names(package: str, path: str) -> set[str]:
    """What a query may call a file's package: its name, the name without its scope, and the
    folder of the project (the first folder of the path under which the package sits is not
    known here, so the folder before `src/` or the path's second folder)."""
    names = {package.lower(), package.rsplit("/", 1)[-1].lower()} if package else set()
    parts = path.split("/")
    if "src" in parts[1:]:
        names.add(parts[parts.index("src") - 1].lower())
    return {n for n in names if n}


def apply_package(cands: list[Candidate], text: str, w: Weights) -> None:
    if w.package == 1.0:
        return
    words = query_words(text)
    names: dict[str, set[str]] = {}  # package -> what a query may call it
    for c in cands:
        pkg = str(c.hit.payload.get("package_name") or "")
        names.setdefault(pkg, set()).update(package_names(pkg, c.path))
    # A word that is also part of another package's name is no choice of package: "sparo" in
    # the sparo repository names `sparo` and is half of `sparo-lib`; "rush-lib" names one.
    parts: dict[str, set[str]] = {
        pkg: {p for n in ns for p in re.split(r"[-/@.]", n) if p} for pkg, ns in names.items()
    }
    named: dict[str, set[str]] = {}
    for pkg, ns in names.items():
        said = {n for n in ns & words if not any(n in parts[o] for o in names if o != pkg)}
        if said:
            named[pkg] = said
    for c in cands:
        hit_names = named.get(str(c.hit.payload.get("package_name") or ""))
        if hit_names:
            c.scale("package", w.package, f"the query names its package ({', '.join(sorted(hit_names))})")


# --- identifiers named in the query ----------------------------------------------------------

_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*")
_CODEISH = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|^I[A-Z][a-z]|^[A-Z][a-z]+[A-Z]")
# chunk_type of a declaration: TypeScript's, and the syntax chunkers' of Rust, Go, Python,
# Java, Kotlin, Swift, C/C++, C# (`struct`, `impl`, `trait`, `macro`, `module`, `namespace`).
DECLARATIONS = frozenset(
    {"class", "interface", "function", "enum", "type", "variable", "method", "field"}
    | {"struct", "impl", "trait", "const", "macro", "module", "namespace"}
)
# A declaration keyword of any of those languages before a name, for chunks cut by lines (no
# symbol): `def parse_config`, `fn parse_config`, `func (s *Server) Serve`, `impl Display for Foo`.
_DECLARED = re.compile(
    r"\b(?:def|fn|func(?:\s*\([^)]*\))?|fun|class|struct|union|enum|trait|interface|protocol|"
    r"object|type|typealias|impl(?:<[^>]*>)?(?:\s+[\w:<>]+\s+for)?|mod|module|namespace|"
    r"const|static|macro_rules!)\s+([A-Za-z_$][A-Za-z0-9_$]*)"
)


def identifiers(text: str) -> set[str]:
    """Names in the query that look like code: camelCase, PascalCase compounds, snake_case,
    `I`-prefixed interfaces, dotted members (`Git.normalizeGitUrl` gives both parts)."""
    out: set[str] = set()
    for m in _IDENT.finditer(text):
        for part in m.group().split("."):
            if len(part) > 2 and _CODEISH.search(part):
                out.add(part)
    return out


def defines(payload: dict[str, Any], names: set[str]) -> str | None:
    """The name of `names` this chunk declares (its symbol is the name or a member of it), or
    whose file is named after it (`ScopedLogger.ts`), else None."""
    symbol = str(payload.get("symbol_name") or "")
    if symbol and payload.get("chunk_type") in DECLARATIONS:
        for part in symbol.split("."):
            if part in names:
                return part
    if not symbol and payload.get("chunk_type") == "text":  # a line chunk: read its declarations
        declared: set[str] = set(_DECLARED.findall(str(payload.get("text") or ""))) & names
        if declared:
            return min(declared)
    # the file name less its extension: `ScopedLogger.test.ts` tests ScopedLogger, not defines it
    stem = str(payload.get("relative_path", "")).rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return stem if stem in names else None


def apply_definition(cands: list[Candidate], text: str, w: Weights) -> None:
    names = identifiers(text)
    if not names:
        return
    for c in cands:
        name = defines(c.hit.payload, names)
        if name is not None:
            c.scale("definition", w.definition, f"defines {name}, which the query names")


# --- file-level evidence ---------------------------------------------------------------------


def apply_file_evidence(cands: list[Candidate], w: Weights) -> None:
    """A file whose several chunks match is likelier the answer than one chunk of a file that
    matched one rare word: each hit gains `file_evidence` x the scores of its file's next best
    `file_chunks` chunks among the candidates (scores after the signals above)."""
    if w.file_evidence == 0:
        return
    by_file: dict[Any, list[Candidate]] = defaultdict(list)
    for c in cands:
        by_file[c.hit.payload.get("file_id")].append(c)
    bonus: dict[int, tuple[float, int]] = {}
    for group in by_file.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda c: -c.score)
        for c in group:
            others = [o.score for o in group if o is not c][: int(w.file_chunks)]
            bonus[id(c)] = (w.file_evidence * sum(others), len(others))
    for c in cands:
        if id(c) in bonus:
            amount, n = bonus[id(c)]
            c.add("file", amount, f"{n} more chunk(s) of this file match")


# --- a test that matches points at what it tests ------------------------------------------------

_TEST_FILE = re.compile(r"\.(test|spec)(\.[cm]?[jt]sx?)$")
_TEST_FOLDER = re.compile(r"/(test|tests|__tests__)/")


def tested_file(path: str) -> list[str]:
    """The paths the file a test file tests may have: `Foo.test.ts` next to `Foo.ts`, in a
    `test/` or `__tests__/` folder beside it (`src/logic/test/Foo.test.ts` -> `src/logic/Foo.ts`),
    or a package's `test/` folder mirroring its `src/` (`pkg/test/foo.test.ts` -> `pkg/src/foo.ts`).
    [] for a file that is not a test."""
    m = _TEST_FILE.search(path)
    if m is None:
        return []
    same = path[: m.start()] + m.group(2)
    return list(dict.fromkeys([same, _TEST_FOLDER.sub("/", same), _TEST_FOLDER.sub("/src/", same)]))


def apply_tested(cands: list[Candidate], w: Weights) -> None:
    """A test repeats the words of what it checks ("does not block on failure"), and tests are
    moved down as answers (ranking.py); what a matching test says is evidence for the file it
    tests: each of that file's hits gains `tested` x the test's best score among the candidates.
    Only files the search found gain; nothing is added to the candidates."""
    if w.tested == 0:
        return
    by_path: dict[str, list[Candidate]] = defaultdict(list)
    for c in cands:
        by_path[c.path].append(c)
    best: dict[str, tuple[float, str]] = {}
    for c in cands:
        subject = next((p for p in tested_file(c.path) if p in by_path), None)
        if subject is not None and c.score > best.get(subject, (0.0, ""))[0]:
            best[subject] = (c.score, c.path)
    for subject, (score, test) in best.items():
        for c in by_path[subject]:
            c.add("tested", w.tested * score, f"its test {test} matches too")


def apply(cands: list[Candidate], text: str, w: Weights) -> list[Candidate]:
    apply_docs(cands, w)
    apply_config(cands, text, w)
    apply_site(cands, text, w)
    apply_package(cands, text, w)
    apply_definition(cands, text, w)
    apply_file_evidence(cands, w)
    apply_tested(cands, w)
    return cands
