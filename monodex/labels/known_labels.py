"""Labels indexed per catalog, and labels the user removed, remembered in small state files so
hooks can tell which branches are tracked without opening the index (the hook path must stay
light).

The rule: an explicit `monodex labels rm` wins over every other reason to track a branch (the
default branch, a track glob) until the user crawls that label again or runs `monodex catalog
track` with a glob matching it."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable
from pathlib import Path

from monodex.disk import jsonfile


def _file(state_dir: Path, catalog: str, kind: str = "") -> Path:
    # Catalog names never contain '.', so "<catalog>.removed.json" cannot clash with a catalog.
    return state_dir / "labels" / f"{catalog}{kind}.json"


def _read(file: Path) -> set[str]:
    try:
        data = json.loads(file.read_text())
    except (OSError, ValueError):
        return set()
    return {x for x in data if isinstance(x, str)} if isinstance(data, list) else set()


def _update(file: Path, *, add: Iterable[str] = (), drop: Iterable[str] = ()) -> None:
    old = _read(file)
    new = (old | set(add)) - set(drop)
    if new != old:
        jsonfile.write_atomic(file, sorted(new))


def read(state_dir: Path, catalog: str) -> set[str]:
    return _read(_file(state_dir, catalog))


def removed(state_dir: Path, catalog: str) -> set[str]:
    """Labels removed with `monodex labels rm` that hooks must not bring back."""
    return _read(_file(state_dir, catalog, ".removed"))


def add(state_dir: Path, catalog: str, label: str) -> None:
    """A crawl stored the label: hooks track its branch (again)."""
    _update(_file(state_dir, catalog), add={label})
    _update(_file(state_dir, catalog, ".removed"), drop={label})


def remove(state_dir: Path, catalog: str, label: str) -> None:
    """The user removed the label: hooks stop refreshing it, whatever else tracks its branch."""
    _update(_file(state_dir, catalog), drop={label})
    _update(_file(state_dir, catalog, ".removed"), add={label})


def forget_label(state_dir: Path, catalog: str, label: str) -> None:
    """The label is gone but not by the user's hand (its branch was deleted): hooks treat a new
    branch of that name like any other branch."""
    _update(_file(state_dir, catalog), drop={label})


def retrack(state_dir: Path, catalog: str, glob: str) -> list[str]:
    """`catalog track GLOB`: removed labels the glob matches are tracked again; returns them."""
    # Globs match branch names; a removed label is a mapped branch name, so match both spellings.
    hits = {
        label
        for label in removed(state_dir, catalog)
        if fnmatch.fnmatchcase(label, glob) or fnmatch.fnmatchcase(label, glob.lower())
    }
    _update(_file(state_dir, catalog, ".removed"), drop=hits)
    return sorted(hits)


def forget(state_dir: Path, catalog: str) -> None:
    """The catalog's labels are all gone (`catalog rm --purge`)."""
    for kind in ("", ".removed"):
        _file(state_dir, catalog, kind).unlink(missing_ok=True)
