"""Ranking that knows what code is: source first, one block per file, one hit per translated page.

Tests, snapshots, generated API reports, change files and changelogs match many queries by their
words (they repeat the names of what they test or describe) but are rarely the answer (and so are
config files the query does not name: signals.apply_config gives them the role "config"): they are
pushed down by a fixed number of places, not removed, so a query that only they answer still
finds them. Then hits are grouped so the top results are distinct files, and the translated copies
of one page (`i18n/zh-cn/...`) are listed under the best of them instead of taking a slot each.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.rank.candidates import Candidate
from monodex.indexer.store.base import Scored

SOURCE = "source"
# Places a secondary hit moves down: below a page of source results of similar rank. Places are
# result places (distinct files), not chunks: counted in chunks, a source file with many matching
# chunks above a test absorbed the demotion and the test kept its slot (issue 14, tune and test
# halves of bench/eval/ both gained: docs/benchmarks.md).
DEMOTION = 10
EXAMPLE_DEMOTION = 3

_ROLES = (
    # instructions for AI coding agents (skills, rules, prompts: `.claude/skills/*/SKILL.md`,
    # `.cursor/rules/*.mdc`, `.github/prompts/`): how to work in the repository, often one skill
    # pack copied for each agent, and they say every word a change request says ("debug", "test",
    # "review") without being its answer. Their own files decide what a folder holds
    # (`AGENTS.md` beside a package describes that package and stays in place), but a skill is
    # named SKILL.md wherever a package ships it (trpc's `packages/client/skills/links/SKILL.md`).
    (
        "agent",
        re.compile(
            r"(^|/)\.(claude|agents?|cursor|windsurf|codex|gemini|clinerules|roo|kiro)/"
            r"|(^|/)\.github/(agents|prompts|instructions|skills|chatmodes)/|(^|/)SKILL\.md$"
        ),
    ),
    ("snapshot", re.compile(r"(^|/)__snapshots__/|\.snap$")),
    (
        # build-tests/: the test projects of Rush repositories; then each ecosystem's layout:
        # tests/ (Rust, Python), src/test/ (Maven, Gradle), Tests/ (Swift), foo_test.go,
        # test_foo.py / foo_test.py / conftest.py, FooTest.java / FooTests.kt / FooTests.swift,
        # C and C++'s foo_test.c / foo_unittest.cc / test_foo.c (jq's src/jq_test.c)
        "test",
        re.compile(
            r"(^|/)(__tests__|__mocks__|[Tt]ests?|test-data|fixtures?|build-tests(-samples)?)/"
            r"|\.(test|spec)\.[cm]?[jt]sx?$|\.(test|spec)\.[a-z]+$"
            r"|_test\.(go|py)$|(^|/)(test_[^/]*|conftest)\.py$"
            r"|_(unit)?tests?\.(c|cc|cpp|cxx)$|(^|/)test_[^/]*\.(c|cc|cpp|cxx)$"
            r"|[a-z0-9]Tests?\.(java|kt|swift|cs)$"
        ),
    ),
    # examples and demos call the API the way a question says it; the library they exercise is
    # the answer. A change request often touches them too (napi-rs's examples/napi/ is its test
    # suite): they move down fewer places than tests (EXAMPLE_DEMOTION).
    ("example", re.compile(r"(^|/)(examples?|samples?|demos?|_examples?)/", re.IGNORECASE)),
    # a single-header or amalgamated copy a tool builds from the sources (nlohmann/json's
    # single_include/, SQLite's amalgamation): it repeats every source file's text, and the file
    # a question is about is the source it was copied from
    ("copy", re.compile(r"(^|/)(single_include|amalgamat(ed|ion))/|[-_.]amalgamat(ed|ion)\.[a-z]+$")),
    # benchmarks name what they measure as often as tests do (vuejs/core's __benchmarks__/*.bench.ts)
    ("benchmark", re.compile(r"(^|/)(__benchmarks__|benchmarks?|benches|bench)/|\.bench\.[a-z]+$")),
    # recorded output a test compares against: it repeats every message the code prints
    ("test-output", re.compile(r"(^|/)(__expected__|expected(-output)?|__fixtures__|golden)/")),
    ("api-report", re.compile(r"(^|/)common/reviews/api/|\.api\.md$")),
    ("change-file", re.compile(r"(^|/)common/changes/")),
    ("changelog", re.compile(r"(^|/)CHANGELOG\.(md|json)$", re.IGNORECASE)),
)

# A translated copy of a page: the folder naming the language, then the page's own path. What
# follows the language (less a Docusaurus plugin folder) is the path the original ends with.
_TRANSLATION = re.compile(
    r"(^|/)(i18n|locales?|l10n|translations?)/(?P<lang>[a-z]{2}([-_][A-Za-z]{2,4})?)/"
    r"(docusaurus-plugin-content-[a-z]+/current/|docusaurus-theme-[a-z-]+/)?(?P<tail>.+)$"
    r"|(^|/)(?P<lang2>(zh|ja|ko|fr|de|es|pt|ru|it)([-_][A-Za-z]{2,4})?)/(?P<tail2>.+\.mdx?)$"
    # a documentation site's page as of a released version (Docusaurus' versioned_docs/version-1.x/
    # beside docs/): the same page again, one slot for all its versions
    r"|(^|/)versioned_docs/version-[^/]+/(?P<tail3>.+)$",
    re.IGNORECASE,
)


@functools.lru_cache(maxsize=8192)  # each candidate's, every search: a dozen patterns a path
def role_of(relative_path: str, chunk_kind: str | None = None) -> str:
    """source, or the kind of secondary file: agent, test, snapshot, example, copy, benchmark,
    test-output, api-report, change-file, changelog (the signals give config files and, for a
    question about code, prose pages theirs: config, docs)."""
    for role, pattern in _ROLES:
        if pattern.search(relative_path):
            return role
    return "changelog" if chunk_kind == "changelog" else SOURCE


@functools.lru_cache(maxsize=4096)  # rank() asks for each candidate against each hit kept
def translation_tail(relative_path: str) -> str | None:
    """For a translated copy, the path its original ends with; None for any other file."""
    m = _TRANSLATION.search(relative_path)
    if m is None:
        return None
    return m.group("tail") or m.group("tail2") or m.group("tail3")


# A translated module: one file per language in a locale folder, named by the language's code
# (zod's `locales/el.ts` beside `locales/en.ts`, Rails' `config/locales/de.yml`, dayjs' `locale/fr.js`).
# Each says the same messages in its own language: a question about those messages meets forty of
# them. The code is ISO 639-1's (two letters, a region or script after it): `lang/go.ts` beside
# `lang/js.ts` in a highlighter's folder names programming languages, not locales.
_LOCALE_FILE = re.compile(
    r"^(?P<folder>(?:.*/)?(?:locales?|i18n|l10n|translations?))/"
    r"(?P<code>[a-z]{2})(?:[-_][A-Za-z]{2,4})?\.[A-Za-z0-9]+$",
    re.IGNORECASE,
)
_ISO_639_1 = frozenset(
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy "
    "da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu "
    "hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb "
    "lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om "
    "or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw "
    "ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu".split()
)
# ... or by the language's English name in a `languages/` folder, as installers name them (tauri's
# NSIS `nsis/languages/Spanish.nsh`, `SimpChinese.nsh`, `PortugueseBR.nsh`; Inno Setup's
# `Languages/German.isl`): eighteen copies of the installer's strings.
_NAMED_LOCALE_FILE = re.compile(
    r"^(?P<folder>(?:.*/)?languages)/(?P<name>[A-Za-z]+)\.[A-Za-z0-9]+$", re.IGNORECASE
)
_NAMES_BY_CODE = {
        "ar": "Arabic", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish",
        "de": "German", "el": "Greek", "en": "English", "es": "Spanish SpanishInternational",
        "et": "Estonian", "fa": "Farsi Persian", "fi": "Finnish", "fr": "French", "he": "Hebrew",
        "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian", "it": "Italian",
        "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian", "lv": "Latvian", "nl": "Dutch",
        "no": "Norwegian", "pl": "Polish", "pt": "Portuguese PortugueseBR BrazilianPortuguese",
        "ro": "Romanian", "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian",
        "sv": "Swedish", "th": "Thai", "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese",
        "zh": "SimpChinese TradChinese ChineseSimplified ChineseTraditional Chinese",
}
_LANGUAGE_NAMES = {name.lower(): code for code, names in _NAMES_BY_CODE.items() for name in names.split()}
# The language a translated module is written from: its file represents the others.
SOURCE_LOCALE = "en"


@functools.lru_cache(maxsize=4096)
def locale_of(relative_path: str) -> tuple[str, str] | None:
    """(its folder, its language) for a translated module's file; None for any other file."""
    m = _LOCALE_FILE.match(relative_path)
    if m is not None and m.group("code").lower() in _ISO_639_1:
        return m.group("folder"), m.group("code").lower()
    n = _NAMED_LOCALE_FILE.match(relative_path)
    if n is not None and (code := _LANGUAGE_NAMES.get(n.group("name").lower())) is not None:
        return n.group("folder"), code
    return None


def sibling_in(relative_path: str, locale: str) -> str | None:
    """The path a translated module's file in `locale` has beside this one, in the same format
    (`locales/el.ts` -> `locales/en.ts`, `languages/Spanish.nsh` -> `languages/English.nsh`)."""
    lang = locale_of(relative_path)
    if lang is None:
        return None
    ext = relative_path.rsplit(".", 1)[-1]
    if _NAMED_LOCALE_FILE.match(relative_path) and not _LOCALE_FILE.match(relative_path):
        names = _NAMES_BY_CODE.get(locale)
        return f"{lang[0]}/{names.split()[0]}.{ext}" if names else None
    return f"{lang[0]}/{locale}.{ext}"


def same_page(a: str, b: str) -> bool:
    """Whether two paths are copies of one page, or of one translated module, in different
    languages."""
    la, lb = locale_of(a), locale_of(b)
    if la is not None and lb is not None:
        return la[0] == lb[0]
    ta, tb = translation_tail(a), translation_tail(b)
    if ta is None and tb is None:
        return False
    if ta is not None and tb is not None:
        return ta == tb
    original, tail = (b, ta) if ta is not None else (a, tb)
    return original == tail or original.endswith("/" + str(tail))


@dataclass
class Kept:
    """A hit kept: its candidate, its place in the order before grouping (1-based), its role and
    the translated copies of the same page folded into it."""

    candidate: Candidate
    position: int
    role: str
    also: list[str] = field(default_factory=list)

    @property
    def hit(self) -> Scored:
        return self.candidate.hit


# A question asking for tests, examples or benchmarks (query.py) keeps those in place.
_ASKED = {
    "test": "test",
    "snapshot": "test",
    "test-output": "test",
    "example": "example",
    "benchmark": "benchmark",
    "agent": "agent",
    "docs": "docs",
}


# Files that exercise code rather than configure it, and the pages that describe it (a question
# about code only: kinds.apply_docs gives them the role; of 214 Markdown pages in the first ten
# of our tune halves and second sets none was an answer, and five questions gained, none lost):
# a config file a question does not name can still be its answer ("which Node.js versions does
# the tooling require").
_EXERCISING = frozenset({"test", "snapshot", "test-output", "example", "benchmark", "docs"})


def rank(
    hits: Sequence[Scored | Candidate],
    *,
    limit: int,
    per_file: int,
    include_tests: bool,
    asks: frozenset[str] = frozenset(),
    locale: str = SOURCE_LOCALE,
    asked: bool = False,
) -> list[Kept]:
    """The hits kept, best first: by score (after the signals), secondary roles moved down
    DEMOTION files (unless the query `asks` for them; after every source file when it is `asked`
    as a question, not a change), at most per_file hits a file,
    translated copies folded. A translated module's files take the place of the best of them, and
    the file in `locale` (the language the question names, else the source language) stands
    for them when it is a candidate: "the default English error messages" are `locales/en.ts`,
    whichever translation says "error" most."""
    cands = [h if isinstance(h, Candidate) else Candidate(h, h.score, None, None) for h in hits]
    keyed = []
    # The engine returns tied scores (frequent after RRF fusion) in no fixed order: the same search
    # must list them the same way every time.
    ordered = sorted(cands, key=lambda c: (-c.score, c.path, _ordinal(c.hit)))
    files: set[Any] = set()
    for position, c in enumerate(ordered, start=1):
        files.add(c.hit.payload.get("file_id"))
        place = len(files)  # files met so far: rises with position, so sources keep their order
        role = c.role or role_of(c.path, c.hit.payload.get("chunk_kind"))
        demoted = not include_tests and role != SOURCE and _ASKED.get(role) not in asks
        # a demoted hit goes after the hits of the DEMOTION-th file below it, not among them
        places = (EXAMPLE_DEMOTION if role == "example" else DEMOTION) if demoted else 0
        if demoted and asked and role in _EXERCISING:
            # A question asks where code is: of 975 secondary files that reached its first ten
            # (hand-written sets) one was an answer, and a weak source file beats them (hand-written
            # tune and test halves +0.003 nDCG@10, phrases +0.003/+0.004). A change request's
            # tests and configs are answers as often as weak sources (R@10 -0.04 if moved too).
            places = len(ordered)
        keyed.append((place + places, demoted, position, c, role))
    keyed.sort(key=lambda k: (k[0], k[1], k[2]))
    # each locale folder's file in `locale`, the best of its chunks (keyed is best first)
    stands: dict[str, tuple[int, Candidate, str]] = {}
    for _, _, position, c, role in keyed:
        if (lang := locale_of(c.path)) is not None and lang[1] == locale and lang[0] not in stands:
            stands[lang[0]] = (position, c, role)
    kept: list[Kept] = []
    # the kept hits a copy can be of: two paths neither of which is a translation or a locale
    # file are never copies, so a plain path is compared with these alone (a search ranks every
    # candidate file when it has history: comparing each with every kept one cost 2.5 ms)
    copied: list[Kept] = []
    per: dict[Any, int] = {}
    taken: set[str] = set()  # hit ids kept: a stand-in is met again at its own place
    for _, _, position, c, role in keyed:
        met = c
        if (lang := locale_of(c.path)) is not None and lang[0] in stands:
            position, c, role = stands.pop(lang[0])  # the first of its folder met: its stand-in
            if c is not met and met.score > c.score:  # its place, and the score that earned it
                c.add("stand-in", met.score - c.score, f"stands for {met.path}, the best of its folder")
        fid = c.hit.payload.get("file_id")
        if per.get(fid, 0) >= per_file or c.hit.id in taken:
            continue
        # a copy is another file: a kept file's next chunk is its own (per_file allows it)
        special = _may_be_copy(c.path)
        copy_of = next(
            (
                k
                for k in (kept if special else copied)
                if k.candidate.path != c.path and same_page(k.candidate.path, c.path)
            ),
            None,
        )
        if copy_of is not None:
            if c.path not in copy_of.also:
                copy_of.also.append(c.path)
            continue
        per[fid] = per.get(fid, 0) + 1
        taken.add(c.hit.id)
        kept.append(Kept(c, position, role, [met.path] if met.path != c.path else []))
        if special:
            copied.append(kept[-1])
        if len(kept) == limit:
            break
    return kept


def _may_be_copy(path: str) -> bool:
    """Whether `path` is a translated page or a locale file: same_page is False for any two
    paths of which neither is."""
    return translation_tail(path) is not None or locale_of(path) is not None


def _ordinal(hit: Scored) -> int:
    value = hit.payload.get("chunk_ordinal")
    return value if isinstance(value, int) else 0
