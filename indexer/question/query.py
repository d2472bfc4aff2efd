"""What a question asks, read once before ranking (issue 34): is it one symbol or a sentence,
which names does it spell, which words may name a file, and does it ask for tests, examples,
benchmarks, docs or CI on purpose.

Pure functions of the text: no index, no model. The signals (signals.py) read a `Query` instead
of each parsing the text again.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from monodex.indexer.points import lexical

from monodex.schema.search import Reading

# A whole query that is one name: `Router`, `tryRender`, `super_len`, `basic_json`,
# `JsonFile.load`, `std::vector`, `Foo#bar`, `parse()`, `$ZodRegistry`.
_SYMBOL = re.compile(
    r"^[`'\"]?(?P<name>[A-Za-z_$][\w$]*(?:(?:\.|::|->|#)[A-Za-z_$][\w$]*)*)(?:\(\))?[`'\"]?$"
)
# A name with the kind of thing it is ("type H", "the Router class", "fn spawn") asks for the name:
# a declaration's keyword before it, a kind's word after it.
_KINDED = re.compile(
    r"^(?:the\s+)?(?:(?:class|struct|enum|trait|interface|protocol|type|typedef|union|func|fn|def|"
    r"function|macro)\s+(?P<before>\S+)|(?P<after>\S+)\s+(?:class|struct|enum|trait|interface|"
    r"protocol|function|method|macro))$",
    re.IGNORECASE,
)
# A name inside a sentence that looks like code, not English: camelCase, PascalCase compounds,
# snake_case, `I`-prefixed interfaces, dotted members, a backquoted word.
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
_CODEISH = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]|_|^I[A-Z][a-z]|^[A-Z]{2,}[a-z]|\$")
_QUOTED = re.compile(r"`([^`\s]+)`")

# Words that say the question wants what is usually moved down: then it is not moved down.
_RUNS = r"(runners?|clients?|helpers?|utilit(y|ies)|harness|modes?|framework|support|server|app)\b"
_ASKS = {
    # not the code that runs tests ("test runner", "test client", "test mode"), nor "tested"
    # nor a mocking library a project ships ("the mock module", retrofit-mock; httpx's mock transport)
    "test": re.compile(
        rf"\b(tests?|testing|specs?|unit[- ]tests?|fixtures?)\b(?!\s+({_RUNS}))"
        rf"|\bmocks?\b(?!\s+({_RUNS}|modules?|librar(y|ies)|packages?|transports?|implementations?)\b)",
        re.I,
    ),
    # "for example" introduces a case of the question's own ("ordered when compared, for example
    # null versus a number"), not a wish for the examples folder
    "example": re.compile(r"(?<!for )\b(examples?|samples?|demos?|playground|tutorials?)\b", re.I),
    "benchmark": re.compile(r"\b(bench(mark)?s?|benchmarking|perf(ormance)? tests?)\b", re.I),
    # a site, not a "cross-site" request or a "same-site" cookie
    "docs": re.compile(r"\b(docs?|documentation|readme|guides?|website)\b|(?<![-\w])sites?\b", re.I),
    "ci": re.compile(r"\b(ci|workflows?|pipelines?|github actions?|continuous integration)\b", re.I),
    # instructions for coding agents (ranking.role_of's "agent"); not an HTTP client's User-Agent,
    # a terminal's or a database's cursor (the editor is a name: Cursor), nor a command line's
    # interactive prompt (a model's prompt comes with the model's words)
    "agent": re.compile(
        r"\b((?<!user[- ])agents?|skills?|claude|(?-i:Cursor)|copilot|codex|gemini|windsurf|llms?|ai)\b",
        re.I,
    ),
}
# A change request's conventional-commit type says what kind of file it touches:
# `ci: pin zig` a pipeline, `docs(readme): ...` a page, `test: skip ...` a test.
_TYPE = re.compile(r"^\s*(?:\[[^\]]*\]\s*)*(?P<type>[A-Za-z]+)(?:\((?P<scope>[^)]*)\))?!?:")
_TYPE_ASKS = {
    "example": "example",
    "examples": "example",
    "ci": "ci",
    "docs": "docs",
    "doc": "docs",
    "test": "test",
    "tests": "test",
    "bench": "benchmark",
}
# A question about how the code works ("how does ...", "where is ...", "which component ...")
# against a change request ("Add mention of why/how we use WRY", `feat(cli): ...`) or a phrase.
_QUESTION = re.compile(
    r"^\s*(how|where|what|which|why|when|who|whose|does|do|is|are|can|could|should|would)\b"
    r"|\b(how|where|why|which|what|when)\s+(does|do|is|are|can|could|should|would|will)\b|\?\s*$",
    re.IGNORECASE,
)
# A query that is one path (`src/router/trie-router/router.ts`, `packages/core/`, `hono-base.ts`):
# a lookup of that file or folder. A file name needs a suffix files have (`JsonFile.load` is a member).
# A line and column may follow (`src/index.ts:42:7`, as compilers and agents write them).
_PATH = re.compile(r"^(?:\./|/)?(?P<path>[\w@$+-][\w@$.+-]*(?:/[\w@$.+-]+)*/?)(?::(?P<line>\d+))?(?::\d+)?$")
_FILE_SUFFIX = re.compile(
    r"\.([jt]sx?|[mc][jt]s|json[5c]?|ya?ml|toml|mdx?|txt|py|rs|go|java|kts?|swift|[ch]|cc|[ch]pp|cs|sh"
    r"|html?|s?css|lock|cfg|ini|xml|gradle|cmake|proto|sql|rb|php)$"
)
# What a file name may be called in a question: words of 3+ letters that are not question words.
_FILE_STOP = lexical.QUERY_STOPWORDS | frozenset(
    "not are all get set new use add fix file files code does work works way also only into make "
    "support feat chore".split()
)


# A dependency update (Renovate's "update dependency @emnapi/core to v1.11.0", "update rust crate
# ctor to v1", Dependabot's "bump rollup from 4.21.0 to 4.22.4", "upgrade minimatch to v10"): the
# name between the verb and `to`/`from` is a package the manifests declare, and a version follows
# (`^8.5.19`, `v10`, `0.7`); "update iterator to check for completion" changes code, not a package.
_DEPENDENCY = re.compile(
    r"\b(?:update|upgrade|bump)s?\s+(?:the\s+)?"
    r"(?:(?:rust\s+)?crate|(?:dev[- ]?)?dependency|package|module|gem)?\s*"
    r"`?(?P<name>@?[A-Za-z0-9][\w.-]*(?:/[\w.-]+)*)`?\s+(?:to|from)\s+`?[\^~>=<]*v?\d",
    re.IGNORECASE,
)


# A language a question names, as a locale's code: "the default English error messages" are the
# English locale's file, not the translation that says "error" most (ranking.rank).
_LANGUAGES = {
    "english": "en", "german": "de", "french": "fr", "spanish": "es", "italian": "it",
    "portuguese": "pt", "dutch": "nl", "russian": "ru", "ukrainian": "uk", "polish": "pl",
    "czech": "cs", "swedish": "sv", "norwegian": "no", "danish": "da", "finnish": "fi",
    "turkish": "tr", "greek": "el", "hebrew": "he", "arabic": "ar", "persian": "fa",
    "hindi": "hi", "chinese": "zh", "japanese": "ja", "korean": "ko", "vietnamese": "vi",
    "thai": "th", "indonesian": "id", "hungarian": "hu", "romanian": "ro", "bulgarian": "bg",
}  # fmt: skip
_LANGUAGE = re.compile(r"\b(" + "|".join(_LANGUAGES) + r")\b", re.IGNORECASE)


@dataclass(frozen=True)
class Query:
    text: str
    symbol: str | None  # the name, when the whole query is one name
    names: frozenset[str]  # the code names it spells (the symbol's parts included)
    words: frozenset[str]  # lowercased words that may name a file or folder
    asks: frozenset[str]  # test, example, benchmark, docs: what it asks for on purpose
    question: bool = False  # asked as a question ("how does ...", "where is ...?"), not a change
    dependencies: frozenset[str] = frozenset()  # packages a dependency update names (`ctor`)
    locale: str | None = None  # the language it names ("German": "de")
    phrase: bool = False  # a phrase ("websocket subscription cleanup"): neither asked nor a change
    path: str | None = None  # the path the whole query is (`src/router.ts`, `packages/core/`)
    line: int | None = None  # ... and the line it names (`src/router.ts:42`)

    @property
    def is_symbol(self) -> bool:
        return self.symbol is not None

    @property
    def is_change(self) -> bool:
        """A change request: neither a question, a phrase nor a name."""
        return not self.is_symbol and not self.question and not self.phrase

    @property
    def may_be_change(self) -> bool:
        """A change request, or a phrase that may be one ("covector published pkg check"): the
        history of such changes may name its files."""
        return not self.is_symbol and (not self.question or self.phrase)


# The verbs a change request opens with ("Fix ...", "Added ...", "Introducing ..."), less those that
# also head a phrase about the code as nouns ("cache invalidation", "stream backpressure",
# "retry with backoff", "log rotation"): such a phrase is asked as a question is.
_REQUEST_VERBS = frozenset(
    """fix add support remove update use make allow skip improve refactor rename move bump upgrade
    implement enable disable handle avoid ensure prevent introduce drop replace migrate expose change
    revert correct clean cleanup simplify optimize optimise reduce increase create delete deprecate
    extract ignore include merge pass preserve publish respect restore throw tweak unify validate
    warn convert align apply adjust bring collect configure define detect emit force generate hide
    infer install keep let normalize override polish prefer prepare provide recover register rework
    rewrite save send separate specify strip suppress try turn unblock unpin upload bootstrap accept
    append attach clarify combine complete compute connect consume decouple defer delegate disallow
    dedupe dedup deduplicate downgrade edit enhance expand extend finalize flush hoist honor honour
    inject isolate mention omit parallelize persist pick prune rebuild refine reject relax reload
    reorder repair require resolve reuse revise serialize shorten silence slim stabilize sunset tidy
    truncate unset untrack unwrap verify feat relocate treat forbid reimplement solve automatically set
    print""".split()
)


_ING_VERBS = frozenset(
    "fix add remove update introduce improve refactor implement bump upgrade migrate".split()
)
# `(chore) covector comment on forks`; a scope of up to three words: `VS Code: ...`, `rush-lib: ...`
_PAREN_TYPE = re.compile(r"^\s*\((?:" + "|".join(sorted(lexical.COMMIT_TYPES)) + r")\)", re.I)
_SCOPED = re.compile(r"^\s*[\w@/.-]+(?: [\w@/.-]+){0,2}:\s")


def is_request(text: str) -> bool:
    """Whether `text` reads as a change request: a conventional-commit type or a scope
    (`fix(cli): ...`, `heft: ...`) or an opening verb in any of its forms (`Fix ...`, `Added ...`,
    `[tag] Supports ...`, `Introducing ...`)."""
    if _PAREN_TYPE.match(text) or _SCOPED.match(text):
        return True
    m = lexical.OPENING.match(text)
    if m is None:
        return False
    if m.group("type"):
        return True
    verb = (m.group("verb") or "").lower()
    if not verb:
        return False
    if verb.endswith("ing"):
        # "Adding ...", "Introducing ..." ask for a change; "printing unicode", "handling errors",
        # "setting a signed cookie" name what the code does
        return verb[:-3] in _ING_VERBS or verb[:-3] + "e" in _ING_VERBS
    forms = {verb}
    for suffix in ("ed", "d", "es", "s"):
        if verb.endswith(suffix):
            forms.add(verb[: -len(suffix)])
    if verb.endswith("ied"):
        forms.add(verb[:-3] + "y")
    if len(verb) > 4 and verb[-3] == verb[-4] and verb.endswith("ed"):
        forms.add(verb[:-3])  # `stopped`
    return bool(forms & _REQUEST_VERBS)


def reading(text: str) -> Reading:
    """How `text` is read, as --explain shows it."""
    q = read(text)
    kind = "name" if q.is_symbol else "phrase" if q.phrase else "question" if q.question else "change request"
    return {"read_as": kind, "names": sorted(q.names), "asks": sorted(q.asks)}


@functools.lru_cache(maxsize=256)
def read(text: str) -> Query:
    stripped = text.strip()
    kinded = _KINDED.match(stripped)
    named_kind = (kinded.group("before") or kinded.group("after")) if kinded else None
    if named_kind is not None and named_kind.lower() in lexical.QUERY_STOPWORDS:
        named_kind = None  # "a class": no name
    m = _SYMBOL.match(named_kind or stripped)
    symbol = m.group("name") if m else None
    names: set[str] = set()
    if symbol:
        names.update(p for p in re.split(r"\.|::|->|#", symbol) if p)
    for q in _QUOTED.findall(text):
        names.update(p for p in re.split(r"\.|::|->|#|\(|\)", q) if len(p) > 1)
    for ident in _IDENT.finditer(lexical.request_text(text)):
        for part in re.split(r"\.|::", ident.group()):
            if len(part) > 2 and _CODEISH.search(part):
                names.add(part)
    words = {t for t in lexical.terms(lexical.request_text(text)) if len(t) > 2 and t not in _FILE_STOP}
    asks = {kind for kind, pattern in _ASKS.items() if pattern.search(text)}
    if typed := _TYPE.match(text):  # `ci: ...`, and its scope too: `fix(ci): ...`, `fix(examples): ...`
        for said in (typed.group("type"), *re.split(r"[/,\s]+", typed.group("scope") or "")):
            if kind := _TYPE_ASKS.get(said.lower()):
                asks.add(kind)
    if symbol:
        asks = set()  # `TestClient` names a class; it does not ask for tests
    asked = symbol is None and bool(_QUESTION.search(stripped))
    # neither asked nor a change: a phrase ("websocket subscription cleanup") is asked as a question
    # is (bench/answers.py's phrase-<set> targets, with history: tune 0.767 -> 0.806, test 0.806 -> 0.822)
    phrase = symbol is None and not asked and not is_request(text)
    question = asked or phrase
    dependencies = (
        frozenset(m.group("name") for m in _DEPENDENCY.finditer(text)) if not symbol else frozenset()
    )
    named = _LANGUAGE.search(text)
    p = _PATH.match(stripped)
    path = p.group("path") if p and ("/" in p.group("path") or _FILE_SUFFIX.search(p.group("path"))) else None
    line = int(p.group("line")) if p and path and p.group("line") else None
    locale = _LANGUAGES[named.group(1).lower()] if named else None
    return Query(
        text,
        symbol,
        frozenset(names),
        frozenset(words),
        frozenset(asks),
        question,
        dependencies,
        locale,
        phrase,
        path,
        line,
    )
