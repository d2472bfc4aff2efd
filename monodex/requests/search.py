"""Questions to one label: a search (or several labels' at once) and a file read back."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from monodex import names
from monodex.requests.fields import (
    DEFAULT_FRESH_SECONDS,
    DEFAULT_LIMIT,
    FILE_ID,
    KINDS,
    LANG_ALIASES,
    MAX_QUERY_CHARS,
    MODES,
    Asks,
    FieldError,
    absolute_path,
    at_least,
    check_names,
    norm_path,
    one_of,
    set_field,
)
from monodex.schema.search import SearchAnswer, ViewAnswer


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
            check_names(self.catalog, self.label)
        absolute_path("worktree", self.worktree)
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
        at_least("limit", self.limit, 1, "10")
        at_least("per_file", self.per_file, 1, "1")
        at_least("max_tokens", self.max_tokens, 1, "2000")
        at_least("fresh", self.fresh, 0, f"{DEFAULT_FRESH_SECONDS:g}")
        one_of("kind", self.kind, KINDS)
        one_of("mode", self.mode, MODES)
        set_field(self, "paths", tuple(norm_path("paths", p) for p in self.paths))
        lang = self.lang.strip().lower() if self.lang else None
        set_field(self, "lang", LANG_ALIASES.get(lang, lang) if lang else None)
        set_field(self, "package", self.package or None)


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
        check_names(self.catalog, self.label)
        if bool(self.file_id) == bool(self.path):
            raise FieldError(
                "file_id", "give exactly one of {name} and path", advice="pass the file_id of a search hit"
            )
        if self.file_id and not FILE_ID.match(self.file_id):
            raise FieldError(
                "file_id",
                "invalid {name} {value!r}",
                value=self.file_id,
                advice="pass the 16 hex digits of a search hit's file_id",
            )
        if self.path:
            set_field(self, "path", norm_path("path", self.path))
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


_CHUNKS = re.compile(r"^(?P<a>\d+)(?:-(?P<b>\d+|end))?$")
