"""Catalog and label names (DESIGN.md vocabulary): validation with the rule that failed."""

from __future__ import annotations

import re

from monodex.errors import UsageError

CATALOG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LABEL_RE = re.compile(r"^[a-z0-9]+(?:[./=-][a-z0-9]+)*$")
_RESERVED = ":@+#"


def _reserved_problem(value: str) -> str | None:
    for ch in value:
        if ch in _RESERVED:
            return f"'{ch}' is reserved"
        if ch.isspace():
            return "whitespace is not allowed"
        if ord(ch) < 32 or ord(ch) == 127:
            return "control characters are not allowed"
    return None


def _check(kind: str, value: str, *, max_len: int, pattern: re.Pattern[str], grammar: str) -> str:
    if not value:
        problem = "must not be empty"
    elif len(value) > max_len:
        problem = f"is {len(value)} characters long; the limit is {max_len}"
    else:
        problem = _reserved_problem(value) or ("" if pattern.match(value) else grammar)
    if problem:
        raise UsageError(f"invalid {kind} name {value!r}: {problem}", _HINTS[kind])
    return value


_HINTS = {
    "catalog": "use lowercase letters and digits in words joined by '-', e.g. 'rushstack'",
    "label": "use lowercase letters and digits joined by '.', '/', '=' or '-', e.g. 'main'",
}


def validate_catalog(value: str) -> str:
    return _check(
        "catalog",
        value,
        max_len=64,
        pattern=CATALOG_RE,
        grammar="only a-z, 0-9 and single '-' between words are allowed",
    )


def validate_label(value: str) -> str:
    return _check(
        "label",
        value,
        max_len=128,
        pattern=LABEL_RE,
        grammar="only a-z, 0-9 and single '.', '/', '=', '-' between words are allowed",
    )


def label_id(catalog: str, label: str) -> str:
    return f"{catalog}:{label}"


def label_for_branch(branch: str) -> str:
    """`feature/Login_Flow` -> `feature/login-flow`; UsageError when no valid label results."""
    label = branch.lower()
    label = re.sub(r"[^a-z0-9./=-]+", "-", label)
    label = re.sub(r"([./=-])[./=-]+", r"\1", label).strip("./=-")
    return validate_label(label)
