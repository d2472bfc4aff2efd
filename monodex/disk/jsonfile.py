"""Reading and atomically writing small JSON documents, with errors that name the file."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from monodex.disk import diskspace
from monodex.errors import UsageError


def read(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            f"fix or delete {path}",
        ) from exc
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path} is not UTF-8 text", f"fix or delete {path}") from exc


def write_atomic(path: Path, data: Any) -> None:
    """On a full disk the old content stays and the error says what to free."""
    try:
        _write_atomic(path, data)
    except OSError as exc:
        full = diskspace.no_room(path, exc)
        if full is None:
            raise
        raise full from exc


def _write_atomic(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2, ensure_ascii=False)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
