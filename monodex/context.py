"""The default catalog/label written by `monodex use`, and flag-over-context resolution."""

from __future__ import annotations

import time
from dataclasses import dataclass

from monodex import jsonfile, names
from monodex.paths import Paths
from monodex.requests import FieldError
from monodex.validate import Where, obj, string


@dataclass(frozen=True)
class Context:
    catalog: str | None
    label: str | None


def load(paths: Paths) -> Context:
    file = paths.context_file
    if not file.exists():
        return Context(None, None)
    where = Where(str(file))
    d = obj(jsonfile.read(file), where, allowed=("catalog", "label", "set_at"))
    catalog = string(d["catalog"], where / "catalog") if "catalog" in d else None
    label = string(d["label"], where / "label") if "label" in d else None
    return Context(catalog, label)


def save(paths: Paths, *, catalog: str, label: str) -> None:
    names.validate_catalog(catalog)
    names.validate_label(label)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    jsonfile.write_atomic(paths.context_file, {"catalog": catalog, "label": label, "set_at": stamp})


def resolve(paths: Paths, catalog: str | None, label: str | None) -> tuple[str, str]:
    """Explicit flags win; otherwise the `monodex use` context; otherwise a usage error."""
    ctx = load(paths) if catalog is None or label is None else Context(None, None)
    catalog = catalog or ctx.catalog
    label = label or ctx.label
    missing = [n for n, v in (("catalog", catalog), ("label", label)) if not v]
    if missing:
        # a FieldError: the CLI names the flag (--catalog), MCP its parameter (catalog)
        also = " (nor the label)" if len(missing) == 2 else ""
        raise FieldError(
            missing[0],
            f"no {{name}} given{also} and no default context set",
            advice="pass {name}, or set a default with 'monodex use --catalog C --label L'",
        )
    assert catalog and label
    return names.validate_catalog(catalog), names.validate_label(label)


def resolve_catalog(paths: Paths, catalog: str | None) -> str:
    """The catalog alone (a question across its labels): the flag, else the `monodex use` one."""
    catalog = catalog or load(paths).catalog
    if not catalog:
        raise FieldError(
            "catalog",
            "no {name} given and no default context set",
            advice="pass {name}, or set a default with 'monodex use --catalog C --label L'",
        )
    return names.validate_catalog(catalog)
