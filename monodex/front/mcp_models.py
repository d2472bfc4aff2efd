"""The MCP tools' output models, derived from the answers' TypedDicts (monodex/schema/): the
tools' output schemas say what the CLI's --json says, field for field, with the descriptions
written next to each field there. Nothing is declared twice.

A key that is not always there (`NotRequired`, or any key of a `total=False` TypedDict: a record
read back from a file) is an optional field that defaults to null; every
model allows more keys than it declares (the CLI contract may add keys; none are dropped)."""

from __future__ import annotations

import functools
import keyword
import operator
import types
from typing import (
    Annotated,
    Any,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from pydantic import BaseModel, ConfigDict, Field, create_model

_OPEN = ConfigDict(extra="allow")
_MODELS: dict[type, type[BaseModel]] = {}


def model_of(answer: type, name: str | None = None) -> type[BaseModel]:
    """The pydantic model of a TypedDict answer (named `name`, else as the TypedDict is)."""
    if answer not in _MODELS:
        fields: dict[str, Any] = {}
        for key, hint in get_type_hints(answer, include_extras=True).items():
            kind, description, optional = _unwrapped(hint)
            optional |= key in answer.__optional_keys__  # type: ignore[attr-defined]  # total=False
            kind = _converted(kind)
            alias = key if keyword.iskeyword(key) else None  # "from": the field's name is from_
            field = Field(None if optional else ..., description=description or None, alias=alias)
            fields[key + "_" if alias else key] = (kind | None if optional else kind, field)
        _MODELS[answer] = create_model(name or answer.__name__, __config__=_OPEN, **fields)
    return _MODELS[answer]


def _unwrapped(hint: Any) -> tuple[Any, str, bool]:
    """(the type, its description, whether the key may be missing) of one TypedDict field."""
    description, optional = "", False
    while True:
        origin = get_origin(hint)
        if origin is NotRequired or origin is Required:
            optional |= origin is NotRequired
            hint = get_args(hint)[0]
        elif origin is Annotated:
            description = next((m for m in hint.__metadata__ if isinstance(m, str)), description)
            hint = get_args(hint)[0]
        else:
            return hint, description, optional


def _converted(kind: Any) -> Any:
    """The type with every TypedDict in it replaced by its model (lists, dicts and unions too)."""
    if is_typeddict(kind):
        return model_of(kind)
    origin, args = get_origin(kind), get_args(kind)
    if origin is types.UnionType or origin is Union:
        return functools.reduce(operator.or_, [_converted(a) for a in args])
    if origin is list or origin is dict:
        return types.GenericAlias(origin, tuple(_converted(a) for a in args))
    return kind
