"""Requests to and from JSON: the socket's operations by name, a request's arguments, and a
request (or a spool entry) built back from them with every field checked against its type."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any, TypeVar

from monodex.errors import UsageError
from monodex.requests.compare import ContainingRequest, DiffRequest
from monodex.requests.crawl import CrawlRequest
from monodex.requests.eval import EvalRequest
from monodex.requests.fields import FieldError
from monodex.requests.labels import (
    GcRequest,
    LabelsRequest,
    OldModelsRequest,
    PurgeCatalogRequest,
    RemoveLabelRequest,
    VerifyRequest,
)
from monodex.requests.search import SearchRequest, ViewRequest

R = TypeVar("R")

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


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
