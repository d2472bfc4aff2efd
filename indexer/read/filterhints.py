"""Why a filtered search found nothing, when the filter itself cannot match anything in the
label: a language the label has no files of, a package it does not contain, a folder or file it
does not have. Asked only after an
empty answer, so a normal search pays nothing for it."""

from __future__ import annotations

import difflib

from monodex.indexer.points import filters as stored
from monodex.indexer.points import membership
from monodex.indexer.points.langs import lang_values
from monodex.indexer.points.membership import Held
from monodex.indexer.read.search import Filters
from monodex.indexer.store.base import Match, MatchAny, Store

from monodex import names
from monodex.requests import FieldError
from monodex.schema.payload import Key


def _values(store: Store, label: Held, key: str) -> list[str]:
    # One payload key of each file's first chunk: a file has one language and one package.
    flt = stored.label_chunks(label, Match(Key.CHUNK_ORDINAL, 1))
    return sorted({str(r.payload.get(key) or "") for r in store.scroll(flt, payload_keys=(key,))} - {""})


def _folders(store: Store, label: Held) -> list[str]:
    files = _values(store, label, Key.RELATIVE_PATH)
    return sorted({"/".join(f.split("/")[:i]) for f in files for i in range(1, f.count("/") + 2)})


def _path(store: Store, lid: Held, label: str, paths: tuple[str, ...]) -> None:
    missing = [p for p in paths if not store.count(stored.label_chunks(lid, Match(Key.PATH_PREFIXES, p)))]
    if not missing:
        return
    close = difflib.get_close_matches(missing[0], _folders(store, lid), n=3, cutoff=0.6)
    raise FieldError(
        "paths",
        "{name} {value!r}: label {label!r} has no such folder or file",
        value=missing[0],
        advice="did you mean {close}?"
        if close
        else "give a folder or file of it, relative to the repository root",
        facts={"label": label, "close": ", ".join(close)},
    )


def check(store: Store, *, catalog: str, label: str, filters: Filters) -> None:
    """FieldError naming what the label holds when `paths`, `lang` or `package` matches none of it
    (each surface names the field: --lang for the CLI, lang for MCP)."""
    lid = membership.of(store, names.label_id(catalog, label))
    _path(store, lid, label, filters.paths)
    lang = MatchAny(Key.LANG, lang_values(filters.lang or ""))
    if filters.lang and not store.count(stored.label_chunks(lid, lang)):
        langs = _values(store, lid, "lang")
        raise FieldError(
            "lang",
            "label {label!r} has no {value} files (it has: {langs})",
            value=filters.lang,
            advice="pass {name} with one of those, or drop {name}",
            facts={"label": label, "langs": ", ".join(langs) or "no files"},
        )
    if filters.package and not store.count(
        stored.label_chunks(lid, Match(Key.PACKAGE_NAME, filters.package))
    ):
        packages = _values(store, lid, Key.PACKAGE_NAME)
        close = difflib.get_close_matches(filters.package, packages, n=5, cutoff=0.5)
        shown = close or packages[:10]
        more = f" (of {len(packages)})" if len(shown) < len(packages) else ""
        raise FieldError(
            "package",
            "label {label!r} has no package {value!r}",
            value=filters.package,
            advice="{known}" if packages else "this label has no package names; drop {name}",
            facts={
                "label": label,
                "known": f"did you mean {', '.join(close)}?"
                if close
                else f"packages{more}: {', '.join(shown)}",
            },
        )
