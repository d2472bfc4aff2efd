"""What every request shares: the vocabulary of its fields, the Asks base that types its answer,
FieldError (a bad field, named as each surface spells it) and the checks the requests run on their
fields in __post_init__."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar

from monodex import names
from monodex.errors import UsageError
from monodex.schema import languages

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


def norm_path(field: str, value: str) -> str:
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


# A search weight a user sets (config.json `catalogs.*.search`, `eval --lexical-weight`): past 10
# one list or the history would decide every search alone.
MAX_WEIGHT = 10.0


def weight(field: str, value: float | None, example: str) -> None:
    if value is not None and math.isnan(value):
        raise FieldError(field, "{name} must be a number from 0 to 10, got nan", example=example)
    at_least(field, value, 0, example)
    if value is not None and value > MAX_WEIGHT:
        raise FieldError(field, f"{{name}} must be at most {MAX_WEIGHT:g}, got {value:g}", example=example)


def at_least(field: str, value: float | None, least: float, example: str) -> None:
    if value is not None and value < least:
        raise FieldError(field, f"{{name}} must be at least {least:g}, got {value:g}", example=example)


def one_of(field: str, value: str | None, allowed: tuple[str, ...]) -> None:
    if value is not None and value not in allowed:
        raise FieldError(
            field, "{name} is {value!r}; use one of: " + ", ".join(allowed), value=value, example=allowed[0]
        )


def absolute_path(field: str, value: str | None) -> None:
    if value is not None and not value.startswith("/"):
        raise FieldError(
            field,
            "{name} must be an absolute path, got {value!r}",
            value=value,
            advice="give the top folder of a checkout of the catalog",
        )


def check_names(catalog: str, label: str) -> None:
    names.validate_catalog(catalog)
    names.validate_label(label)


def set_field(obj: object, name: str, value: Any) -> None:
    object.__setattr__(obj, name, value)  # normalising a frozen dataclass in __post_init__


FILE_ID = re.compile(r"^[0-9a-f]{16}$")  # a file version: 16 hex digits of XXH64
