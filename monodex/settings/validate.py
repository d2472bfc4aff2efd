"""A tiny strict validator for JSON config: every error names its path and the fix."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from monodex.errors import UsageError


class Where:
    """A dotted location inside one config file, used to phrase errors."""

    def __init__(self, source: str, trail: str = "") -> None:
        self.source = source
        self.trail = trail

    def __truediv__(self, key: str | int) -> Where:
        step = f"[{key}]" if isinstance(key, int) else key
        joined = f"{self.trail}.{step}" if self.trail and isinstance(key, str) else self.trail + step
        return Where(self.source, joined)

    def fail(self, problem: str, fix: str = "") -> UsageError:
        where = f"{self.source}: {self.trail}" if self.trail else self.source
        return UsageError(f"{where}: {problem}", fix or f"edit {self.source}")


def obj(value: Any, where: Where, *, required: Iterable[str] = (), allowed: Iterable[str]) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise where.fail(f"expected an object, got {type(value).__name__}")
    allowed_set = set(allowed) | set(required)
    for key in value:
        if key not in allowed_set:
            raise where.fail(
                f"unknown field {key!r}", f"remove it; known fields: {', '.join(sorted(allowed_set))}"
            )
    for key in required:
        if key not in value:
            raise (where / key).fail("is required")
    return dict(value)


def string(value: Any, where: Where, *, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise where.fail(f"expected a string, got {type(value).__name__}")
    if not value and not allow_empty:
        raise where.fail("must not be empty")
    return value


def integer(value: Any, where: Where, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise where.fail(f"expected an integer, got {type(value).__name__}")
    if minimum is not None and value < minimum:
        raise where.fail(f"must be at least {minimum}, got {value}")
    return value


def boolean(value: Any, where: Where) -> bool:
    if not isinstance(value, bool):
        raise where.fail(f"expected true or false, got {type(value).__name__}")
    return value


def string_list(value: Any, where: Where) -> list[str]:
    if not isinstance(value, list):
        raise where.fail(f"expected a list of strings, got {type(value).__name__}")
    return [string(item, where / i) for i, item in enumerate(value)]
