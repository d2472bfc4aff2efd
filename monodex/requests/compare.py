"""Questions across labels (issue 24): what changed between two, which labels hold a file
version or a chunk."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from monodex import names
from monodex.requests.fields import (
    FILE_ID,
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
from monodex.schema.compare import ContainingAnswer, DiffAnswer


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
        check_names(self.catalog, self.from_label)
        names.validate_label(self.to_label)
        if self.text is not None and not self.text.strip():
            raise FieldError("text", "the question ({name}) is empty", example="'retry'")
        if self.text is not None and len(self.text) > MAX_QUERY_CHARS:
            raise FieldError("text", f"the question ({{name}}) is over {MAX_QUERY_CHARS:,} characters")
        at_least("limit", self.limit, 1, "20")
        one_of("mode", self.mode, MODES)
        set_field(self, "paths", tuple(norm_path("paths", p) for p in self.paths))


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
        absolute_path("worktree", self.worktree)
        self.parts()

    def parts(self) -> tuple[str | None, str | None, int | None, int | None]:
        """(file_id, path, line, chunk number): one of file_id and path, at most one number."""
        head, sep, tail = self.target.strip().rpartition(":")
        if not sep or not tail.isdigit():
            head, tail = self.target.strip(), ""
        number = int(tail) if tail else None
        if number is not None and number < 1:
            raise FieldError("target", "{name} {value!r}: lines and chunks count from 1", value=self.target)
        if FILE_ID.match(head):
            return head, None, None, number
        return None, norm_path("target", head), number, None
