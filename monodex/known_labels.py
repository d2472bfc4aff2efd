"""Labels indexed per catalog, remembered in a small state file so hooks can tell which branches
are tracked without opening the index (the hook path must stay light)."""

from __future__ import annotations

import json
from pathlib import Path

from monodex import jsonfile


def _file(state_dir: Path, catalog: str) -> Path:
    return state_dir / "labels" / f"{catalog}.json"


def read(state_dir: Path, catalog: str) -> set[str]:
    try:
        data = json.loads(_file(state_dir, catalog).read_text())
    except (OSError, ValueError):
        return set()
    return {x for x in data if isinstance(x, str)} if isinstance(data, list) else set()


def add(state_dir: Path, catalog: str, label: str) -> None:
    labels = read(state_dir, catalog)
    if label not in labels:
        jsonfile.write_atomic(_file(state_dir, catalog), sorted(labels | {label}))


def remove(state_dir: Path, catalog: str, label: str) -> None:
    labels = read(state_dir, catalog)
    if label in labels:
        jsonfile.write_atomic(_file(state_dir, catalog), sorted(labels - {label}))
