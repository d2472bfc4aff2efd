"""Catalog and label names (DESIGN.md vocabulary): validation with the rule that failed."""

from __future__ import annotations

import re
from collections.abc import Callable

from monodex.errors import UsageError

CATALOG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
LABEL_RE = re.compile(r"^[a-z0-9]+(?:[./=-][a-z0-9]+)*$")
_RESERVED = ":@+#"
# The labels of detached HEADs: `commit/` and a commit's first 12 hex digits (standing.py).
# No branch is given one (branchlabels.py).
COMMIT_LABEL_PREFIX = "commit/"


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
        raise UsageError(f"invalid {kind} name {value!r}: {problem}", _hint(kind, value))
    return value


def _hint(kind: str, value: str) -> str:
    """A branch name typed as a label gets the label the hooks would map it to."""
    mapped = _map_branch(value) if kind == "label" else ""
    if mapped and LABEL_RE.match(mapped) and len(mapped) <= 128:
        return f"did you mean {mapped!r}? '--branch {value}' maps a branch name the way the hooks do"
    return _HINTS[kind]


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


def default_branch(origin_head: str | None, has_branch: Callable[[str], bool]) -> str | None:
    """The repository's default branch: where origin/HEAD points (`origin_head`, the ref it names,
    e.g. refs/remotes/origin/main), else main or master if present. Hooks refresh it by default."""
    prefix = "refs/remotes/origin/"
    if origin_head and origin_head.startswith(prefix):
        return origin_head[len(prefix) :]
    return next((name for name in ("main", "master") if has_branch(name)), None)


def label_for_branch(branch: str) -> str:
    """`feature/Login_Flow` -> `feature/login-flow`; UsageError when no valid label results.
    The label a branch is given is this unless another branch holds it (branchlabels.py)."""
    label = _map_branch(branch)
    try:
        return validate_label(label)
    except UsageError as exc:
        raise UsageError(
            f"branch {branch!r} maps to no valid label: {exc.problem}", _HINTS["label"]
        ) from None


def is_fresh(*, complete: bool, indexed_commit: str, branch_commit: str | None) -> bool | None:
    """Whether a label reflects its branch: None when there is no branch to compare with. One
    rule for search freshness (indexer) and `status` (front)."""
    if not branch_commit:
        return None
    return complete and branch_commit == indexed_commit


def _map_branch(branch: str) -> str:
    label = branch.lower()
    label = re.sub(r"[^a-z0-9./=-]+", "-", label)
    return re.sub(r"([./=-])[./=-]+", r"\1", label).strip("./=-")
