"""One typed request per operation, validated once, whichever surface built it.

The CLI builds requests from its flags, the MCP server from its tools' arguments and the runner
from the socket's wire (`parse`): one set of checks, one set of errors. A bad field raises
FieldError, which names the field by its request name; each surface spells it as its own flag or
parameter (`FieldError.spelled`), so an MCP client never reads about `--max-tokens`.
Stdlib and kernel only: the CLI and `monodex status` load this without the indexer."""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

from monodex import names, questionfile
from monodex.errors import UsageError
from monodex.schema import languages
from monodex.schema.compare import ContainingAnswer, DiffAnswer
from monodex.schema.crawl import CrawlAnswer
from monodex.schema.eval import EvalAnswer
from monodex.schema.labels import (
    GcAnswer,
    LabelsAnswer,
    OldModelsAnswer,
    PurgedCatalog,
    RemovedLabel,
    VerifyAnswer,
)
from monodex.schema.search import SearchAnswer, ViewAnswer

# The chunkers' CHUNK_KINDS, spelled here so the front needs no tree-sitter (a test keeps them equal).
KINDS = ("content", "imports", "changelog", "config")
MODES = ("hybrid", "dense", "lexical")
# The languages a file's suffix names (the `lang` payload's values).
LANGUAGES = languages.LANGUAGES
# What people also call them: `--lang rs` is `--lang rust`.
LANG_ALIASES = {
    "ts": "typescript", "tsx": "typescript", "js": "javascript", "md": "markdown", "yml": "yaml",
    "py": "python", "rs": "rust", "golang": "go", "kt": "kotlin", "c++": "cpp", "cs": "csharp",
    "c#": "csharp", "sh": "shell", "bash": "shell",
}  # fmt: skip
# A question, or a pasted function to find its like; not a pasted file. JSON escapes a character
# to at most 12 bytes, so a capped text always fits in the socket's MAX_REQUEST.
MAX_QUERY_CHARS = 16 * 1024
DEFAULT_LIMIT = 10
DEFAULT_FRESH_SECONDS = 30.0
SPOOL_SCHEMA = 1  # the spool entry's format (RefreshRequest); a hook of another schema is set aside


A = TypeVar("A")


class Asks(Generic[A]):
    """A request whose answer is an A (monodex/schema/): route.execute(request) is typed by it."""


class FieldError(UsageError):
    """A bad value of one request field. `problem` and `advice` are format strings written here,
    never holding user text: `{name}` is the field as a surface names it (the request's field name
    by default, a flag or a parameter once `spelled`), `{value}` the bad value, other `{keys}`
    come from `facts` (JSON values: the error crosses the socket whole, see `wire`)."""

    def __init__(
        self,
        field: str,
        problem: str,
        *,
        value: Any = None,
        example: str = "",
        advice: str = "",
        facts: Mapping[str, Any] | None = None,
    ) -> None:
        self.field, self.template, self.value = field, problem, value
        self.example, self.advice, self.facts = example, advice, dict(facts or {})
        super().__init__(*self._text(lambda f: f, "="))

    def wire(self) -> dict[str, Any]:
        """What the runner sends, so the client spells the field its own way."""
        keys = ("field", "template", "value", "example", "advice", "facts")
        return {k: getattr(self, k) for k in keys}

    @classmethod
    def from_wire(cls, d: Mapping[str, Any]) -> FieldError:
        return cls(
            str(d["field"]),
            str(d["template"]),
            value=d.get("value"),
            example=str(d.get("example") or ""),
            advice=str(d.get("advice") or ""),
            facts=d.get("facts") or {},
        )

    def _text(self, name: Callable[[str], str], joiner: str) -> tuple[str, str]:
        called = name(self.field)
        hint = f"pass {called}{joiner}{self.example}" if self.example else ""
        advice = self.advice.format(name=called, value=self.value, **self.facts)
        problem = self.template.format(name=called, value=self.value, **self.facts)
        return problem, "; ".join(h for h in (hint, advice) if h)

    def spelled(self, name: Callable[[str], str], *, joiner: str = " ") -> UsageError:
        """The same error in a surface's words: `name` maps a field to its flag or parameter."""
        return UsageError(*self._text(name, joiner))


def _norm_path(field: str, value: str) -> str:
    """A folder or file relative to the repository root, in the index's spelling."""
    p = value.strip().replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    p = p.strip("/")
    if not p or p.startswith("../") or p == "..":
        raise FieldError(
            field,
            "invalid {name} {value!r}: not a path inside the repository",
            value=value,
            example="libraries/net",
            advice="give a folder or file relative to the repository root",
        )
    return p


def _at_least(field: str, value: float | None, least: float, example: str) -> None:
    if value is not None and value < least:
        raise FieldError(field, f"{{name}} must be at least {least:g}, got {value:g}", example=example)


def _one_of(field: str, value: str | None, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise FieldError(
            field, "{name} is {value!r}; use one of: " + ", ".join(allowed), value=value, example=allowed[0]
        )


@dataclass(frozen=True)
class SearchRequest(Asks[SearchAnswer]):
    """Search one label with a question; every search option is a field here (and one CLI flag
    and one MCP parameter: tests/front checks the three agree)."""

    OP: ClassVar[str] = "search"
    WRITES: ClassVar[bool] = False

    catalog: str
    label: str
    text: str
    limit: int = DEFAULT_LIMIT
    paths: tuple[str, ...] = ()
    package: str | None = None
    kind: str | None = None
    lang: str | None = None
    mode: str = "hybrid"
    per_file: int = 1
    include_tests: bool = False
    explain: bool = False
    fresh: float | None = None  # seconds to wait for the label to reflect its branch
    max_tokens: int | None = None  # pack the answer into this many tokens
    wait_dense: bool = False  # with fresh: also wait (same bound) for every dense vector (phase two)
    # The absolute top folder of the worktree the request is answered for (where you stand), or
    # None: its freshness names it, and a label not indexed yet is indexed on demand for it.
    worktree: str | None = None
    # Search the branch as committed: no overlay of the worktree's uncommitted files.
    committed: bool = False
    # Answer from the label as indexed even when it is not at the commit checked out where you
    # stand; by default such a label is caught up first (indexer/follow/ondemand.py).
    as_indexed: bool = False
    # Several labels at once (issue 24): those matching any glob, or all; `label` is then "".
    labels: tuple[str, ...] = ()
    all_labels: bool = False

    def __post_init__(self) -> None:
        if self.labels or self.all_labels:
            _many_labels(self)
        else:
            _names(self.catalog, self.label)
        _absolute("worktree", self.worktree)
        if not self.text.strip():
            raise FieldError(
                "text", "the search text ({name}) is empty", example="'what you are looking for'"
            )
        if len(self.text) > MAX_QUERY_CHARS:
            raise FieldError(
                "text",
                f"the search text ({{name}}) is {len(self.text):,} characters; "
                f"at most {MAX_QUERY_CHARS:,} are searched",
                advice="ask in a sentence or paste a function, not a whole file",
            )
        _at_least("limit", self.limit, 1, "10")
        _at_least("per_file", self.per_file, 1, "1")
        _at_least("max_tokens", self.max_tokens, 1, "2000")
        _at_least("fresh", self.fresh, 0, f"{DEFAULT_FRESH_SECONDS:g}")
        _one_of("kind", self.kind, KINDS)
        _one_of("mode", self.mode, MODES)
        _set(self, "paths", tuple(_norm_path("paths", p) for p in self.paths))
        lang = self.lang.strip().lower() if self.lang else None
        _set(self, "lang", LANG_ALIASES.get(lang, lang) if lang else None)
        _set(self, "package", self.package or None)


_GLOB = re.compile(r"^[a-z0-9./=*?\[\]!-]{1,128}$")


def _many_labels(r: SearchRequest) -> None:
    """A search of several labels: globs in the label grammar, no single label, no waiting."""
    names.validate_catalog(r.catalog)
    if r.label:
        raise FieldError(
            "label", "{name} names one label; labels and all_labels name several", advice="drop {name}"
        )
    if r.labels and r.all_labels:
        raise FieldError("labels", "{name} and all_labels exclude each other", advice="drop one of them")
    for glob in r.labels:
        if not _GLOB.match(glob):
            raise FieldError(
                "labels",
                "invalid {name} pattern {value!r}",
                value=glob,
                example="'release/*'",
                advice="a label name, where * and ? match any characters",
            )
    if r.fresh is not None:
        raise FieldError(
            "fresh", "{name} waits for one label", advice="search one label to wait for it, or drop {name}"
        )


@dataclass(frozen=True)
class DiffRequest(Asks[DiffAnswer]):
    """What changed between two labels of a catalog (files, chunks, symbols), from the index;
    `text` ranks the changes by relevance to a question and keeps the `limit` best files."""

    OP: ClassVar[str] = "diff"
    WRITES: ClassVar[bool] = False

    catalog: str
    from_label: str
    to_label: str
    text: str | None = None
    limit: int | None = None  # files; default all (with text: DEFAULT_LIMIT)
    paths: tuple[str, ...] = ()
    mode: str = "hybrid"

    def __post_init__(self) -> None:
        _names(self.catalog, self.from_label)
        names.validate_label(self.to_label)
        if self.text is not None and not self.text.strip():
            raise FieldError("text", "the question ({name}) is empty", example="'retry'")
        if self.text is not None and len(self.text) > MAX_QUERY_CHARS:
            raise FieldError("text", f"the question ({{name}}) is over {MAX_QUERY_CHARS:,} characters")
        _at_least("limit", self.limit, 1, "20")
        _one_of("mode", self.mode, MODES)
        _set(self, "paths", tuple(_norm_path("paths", p) for p in self.paths))


@dataclass(frozen=True)
class ContainingRequest(Asks[ContainingAnswer]):
    """Which labels hold a file version or a chunk: `target` is FILE_ID, FILE_ID:N (chunk N),
    PATH or PATH:LINE; `label` says whose version of PATH is meant when several exist, else the
    label of the branch checked out in `worktree` (where you stand) when it holds one."""

    OP: ClassVar[str] = "labels-containing"
    WRITES: ClassVar[bool] = False

    catalog: str
    target: str
    label: str | None = None
    worktree: str | None = None  # the absolute top folder of a checkout of the catalog

    def __post_init__(self) -> None:
        names.validate_catalog(self.catalog)
        if self.label is not None:
            names.validate_label(self.label)
        _absolute("worktree", self.worktree)
        self.parts()

    def parts(self) -> tuple[str | None, str | None, int | None, int | None]:
        """(file_id, path, line, chunk number): one of file_id and path, at most one number."""
        head, sep, tail = self.target.strip().rpartition(":")
        if not sep or not tail.isdigit():
            head, tail = self.target.strip(), ""
        number = int(tail) if tail else None
        if number is not None and number < 1:
            raise FieldError("target", "{name} {value!r}: lines and chunks count from 1", value=self.target)
        if _FILE_ID.match(head):
            return head, None, None, number
        return None, _norm_path("target", head), number, None


@dataclass(frozen=True)
class ViewRequest(Asks[ViewAnswer]):
    """Read one indexed file, by file_id (from a search hit) or by path; `chunks` selects 'N',
    'N-M' or 'N-end' (1-based), default all."""

    OP: ClassVar[str] = "view"
    WRITES: ClassVar[bool] = False

    catalog: str
    label: str
    file_id: str | None = None
    path: str | None = None
    chunks: str | None = None

    def __post_init__(self) -> None:
        _names(self.catalog, self.label)
        if bool(self.file_id) == bool(self.path):
            raise FieldError(
                "file_id", "give exactly one of {name} and path", advice="pass the file_id of a search hit"
            )
        if self.file_id and not _FILE_ID.match(self.file_id):
            raise FieldError(
                "file_id",
                "invalid {name} {value!r}",
                value=self.file_id,
                advice="pass the 16 hex digits of a search hit's file_id",
            )
        if self.path:
            _set(self, "path", _norm_path("path", self.path))
        if self.chunks is not None:
            self.selection()

    def selection(self) -> tuple[int, int | None]:
        """(first, last) chunk numbers, last None for 'to the end'."""
        if self.chunks is None:
            return 1, None
        m = _CHUNKS.match(self.chunks)
        bad = FieldError(
            "chunks",
            "invalid {name} {value!r}",
            value=self.chunks,
            advice="use 'N', 'N-M' (N <= M) or 'N-end'; chunks count from 1",
        )
        if not m or int(m["a"]) < 1:
            raise bad
        first = int(m["a"])
        last = None if m["b"] == "end" else int(m["b"] or first)
        if last is not None and last < first:
            raise bad
        return first, last

    @classmethod
    def from_id(cls, catalog: str, label: str, selector: str) -> ViewRequest:
        """From FILE_ID, FILE_ID:N, FILE_ID:N-M or FILE_ID:N-end (what `search` prints)."""
        file_id, _, chunks = selector.partition(":")
        return cls(catalog, label, file_id=file_id, chunks=chunks or None)


R = TypeVar("R")
_FILE_ID = re.compile(r"^[0-9a-f]{16}$")
_CHUNKS = re.compile(r"^(?P<a>\d+)(?:-(?P<b>\d+|end))?$")


@dataclass(frozen=True)
class LabelsRequest(Asks[LabelsAnswer]):
    """List the indexed labels, of one catalog or all."""

    OP: ClassVar[str] = "labels"
    WRITES: ClassVar[bool] = False

    catalog: str | None = None

    def __post_init__(self) -> None:
        if self.catalog is not None:
            names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class RemoveLabelRequest(Asks[RemovedLabel]):
    OP: ClassVar[str] = "labels-rm"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str

    def __post_init__(self) -> None:
        _names(self.catalog, self.label)


@dataclass(frozen=True)
class PurgeCatalogRequest(Asks[PurgedCatalog]):
    OP: ClassVar[str] = "catalog-purge"
    WRITES: ClassVar[bool] = True

    catalog: str

    def __post_init__(self) -> None:
        names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class GcRequest(Asks[GcAnswer]):
    OP: ClassVar[str] = "gc"
    WRITES: ClassVar[bool] = True

    catalog: str
    dry_run: bool = False
    compact: bool = False  # then what the runner does nightly: Edge merges segments, builds HNSW

    def __post_init__(self) -> None:
        names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class OldModelsRequest(Asks[OldModelsAnswer]):
    """The collections of models used before the configured one (`gc --old-models`). Runs only
    in the process that asks, with no runner up: it deletes what a runner holds open."""

    OP: ClassVar[str] = "old-models"
    WRITES: ClassVar[bool] = True

    dry_run: bool = False


@dataclass(frozen=True)
class VerifyRequest(Asks[VerifyAnswer]):
    OP: ClassVar[str] = "verify"
    WRITES: ClassVar[bool] = True

    catalog: str | None = None
    label: str | None = None
    repair: bool = False

    def __post_init__(self) -> None:
        if self.catalog is not None:
            names.validate_catalog(self.catalog)
        if self.label is not None:
            names.validate_label(self.label)


@dataclass(frozen=True)
class CrawlRequest(Asks[CrawlAnswer]):
    """Index a commit (or the working tree): the crawl creates the label, so its name is checked
    here whoever asks (a label outside the grammar could never be named to remove it)."""

    OP: ClassVar[str] = "crawl"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str
    commit: str | None = None
    working_dir: bool = False
    full: bool = False
    # Phase two (dense vectors) in the same request: None chooses by where it runs, i.e. in this
    # process when no runner is up (nobody else would), left to the runner's fill job otherwise.
    wait_dense: bool | None = None
    # The checkout to read (absolute top folder of a linked or the main worktree): its HEAD for
    # --commit HEAD, its files for --working-dir. None: the catalog's registered path.
    worktree: str | None = None
    # Run here (no runner): end by compacting the index when it helps (upkeep/compaction.py).
    compact: bool = True

    def __post_init__(self) -> None:
        _names(self.catalog, self.label)
        _absolute("worktree", self.worktree)
        if self.working_dir and self.commit is not None:  # neither: HEAD
            raise FieldError(
                "commit", "{name} and the working dir exclude each other", advice="drop one of them"
            )


SPLITS = ("both", "tune", "test", "all")
DEFAULT_EVAL_QUESTIONS = 300
DEFAULT_EVAL_COMMITS = 10_000


@dataclass(frozen=True)
class EvalRequest(Asks[EvalAnswer]):
    """Score search on one label (`monodex eval`): questions from the label's own history (or
    `questions`, a hand-written set as questionfile.read gives it), each ranked in every mode of
    `modes` and by a plain BM25 over the same files. `split`: both halves side by side, one of
    them, or all questions as one set."""

    OP: ClassVar[str] = "eval"
    WRITES: ClassVar[bool] = False

    catalog: str
    label: str
    modes: tuple[str, ...] = MODES
    split: str = "both"
    limit_questions: int = DEFAULT_EVAL_QUESTIONS  # the newest questions from history
    max_commits: int = DEFAULT_EVAL_COMMITS  # first-parent commits read back from the label's
    questions: dict[str, Any] | None = None  # {"source": file name, "queries": [...]}
    per_query: bool = False  # each question's ranks in the answer

    def __post_init__(self) -> None:
        _names(self.catalog, self.label)
        if not self.modes:
            raise FieldError("modes", "{name} is empty", example="hybrid")
        for mode in self.modes:
            _one_of("modes", mode, MODES)
        _set(self, "modes", tuple(m for m in MODES if m in self.modes))  # one order, each once
        _one_of("split", self.split, SPLITS)
        _at_least("limit_questions", self.limit_questions, 1, str(DEFAULT_EVAL_QUESTIONS))
        _at_least("max_commits", self.max_commits, 1, str(DEFAULT_EVAL_COMMITS))
        if self.questions is not None:
            source = str(self.questions.get("source") or "questions")
            queries = questionfile.check(self.questions.get("queries"), source)
            _set(self, "questions", {"source": source, "queries": queries})


@dataclass(frozen=True)
class RefreshRequest:
    """Bring a label to a commit: what a hook (or `--fresh`, or the runner itself) queues in the
    spool. A spool entry is read back through `build`, like a socket call, so a wrong-typed entry
    is set aside when claimed, never breaking sorting or a refresh later (issue 12)."""

    OP: ClassVar[str] = "refresh"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str
    repo: str
    ref: str  # refs/heads/main
    commit: str
    hook: str  # post-commit | post-checkout | post-merge | post-rewrite | cli
    created_at: float
    attempts: int = 0
    not_before: float = 0.0
    last_error: str = ""
    schema: int = SPOOL_SCHEMA
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        _names(self.catalog, self.label)
        if self.attempts < 0:
            raise FieldError("attempts", "{name}: must not be negative, got {value}", value=self.attempts)

    @property
    def key(self) -> str:
        return names.label_id(self.catalog, self.label)


Request = (
    SearchRequest
    | DiffRequest
    | ContainingRequest
    | ViewRequest
    | LabelsRequest
    | RemoveLabelRequest
    | PurgeCatalogRequest
    | GcRequest
    | OldModelsRequest
    | VerifyRequest
    | CrawlRequest
    | EvalRequest
)
TYPES: dict[str, type[Request]] = {
    t.OP: t
    for t in (
        SearchRequest,
        DiffRequest,
        ContainingRequest,
        ViewRequest,
        LabelsRequest,
        RemoveLabelRequest,
        PurgeCatalogRequest,
        GcRequest,
        OldModelsRequest,
        VerifyRequest,
        CrawlRequest,
        EvalRequest,
    )
}


def to_wire(request: Request) -> dict[str, Any]:
    """The request as JSON arguments for the socket (fields at their default are left out)."""
    out: dict[str, Any] = {}
    for f in dataclasses.fields(request):
        value = getattr(request, f.name)
        if f.default is dataclasses.MISSING or value != f.default:
            out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def parse(op: str, args: Mapping[str, Any]) -> Request:
    """A request from the socket's wire, checked as strictly as one the CLI built."""
    kind = TYPES.get(op)
    if kind is None:
        raise UsageError(f"unknown operation {op!r}", f"use one of: {', '.join(sorted(TYPES))}")
    if not isinstance(args, Mapping):
        raise UsageError(
            f'"args" must be an object, got {type(args).__name__}',
            'send "args" as a JSON object of named fields',
        )
    return build(kind, args)


def build(kind: type[R], args: Mapping[str, Any], *, ignore_unknown: bool = False) -> R:
    """A request of `kind` from JSON values, each field checked against its annotation; the
    socket rejects unknown fields, a spool entry ignores them (a newer hook may add some)."""
    op = getattr(kind, "OP", kind.__name__)
    fields = {f.name: f for f in dataclasses.fields(kind)}  # type: ignore[arg-type]
    unknown = [str(k) for k in args if k not in fields]
    if unknown and not ignore_unknown:
        raise FieldError(
            unknown[0], f"{{name}} is not an argument of {op!r}", advice=f"known: {', '.join(fields)}"
        )
    missing = [k for k, f in fields.items() if _required(f) and k not in args]
    if missing:
        raise FieldError(missing[0], f"{{name}} is required by {op!r}", facts={"missing": missing})
    return kind(**{k: _typed(k, str(fields[k].type), v) for k, v in args.items() if k in fields})


def _required(f: dataclasses.Field[Any]) -> bool:
    return f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING


_NOUNS = {
    "str": "a string",
    "int": "a whole number",
    "float": "a number",
    "bool": "true or false",
    "tuple[str, ...]": "a list of strings",
    "dict[str, Any]": "an object",
}


def _typed(field: str, annotation: str, value: Any) -> Any:
    """A wire value of the field's type (the annotation as written above), or FieldError."""
    if value is None and annotation.endswith("| None"):
        return None
    base = annotation.removesuffix(" | None")
    if base == "tuple[str, ...]":
        items = [value] if isinstance(value, str) else value
        if isinstance(items, list) and all(isinstance(i, str) for i in items):
            return tuple(items)
    elif base == "bool" and isinstance(value, bool):
        return value
    elif base == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    elif base == "float" and isinstance(value, int | float) and not isinstance(value, bool):
        if math.isfinite(value):  # NaN and infinity compare as no time ever does
            return float(value)
    elif base == "str" and isinstance(value, str):
        return value
    elif base == "dict[str, Any]" and isinstance(value, dict):
        return value
    noun = _NOUNS.get(base, base)
    raise FieldError(
        field,
        f"{{name}}: expected {noun}, got {_short(value)}",
        advice=f"send {{name}} as {noun}",
    )


def _absolute(field: str, value: str | None) -> None:
    if value is not None and not value.startswith("/"):
        raise FieldError(
            field,
            "{name} must be an absolute path, got {value!r}",
            value=value,
            advice="give the top folder of a checkout of the catalog",
        )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _names(catalog: str, label: str) -> None:
    names.validate_catalog(catalog)
    names.validate_label(label)


def _set(obj: object, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # normalising a frozen dataclass in __post_init__
