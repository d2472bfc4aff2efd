"""Can this process create files in a folder? Asked by `status` and `doctor` for the state and
spool folders: a runner that cannot claim or record would otherwise stall without a word."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

from monodex.schema.status import Problem


def culprit(folder: Path) -> tuple[Path, str] | None:
    """The path that keeps files from being created in folder (made on demand when missing) and
    why, or None when folder is usable."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return existing, f"{existing} is not a folder"
    # os.access, not a probe file: status stays read-only; it also reports a read-only mount.
    if not os.access(existing, os.W_OK | os.X_OK):
        return existing, f"{existing} is not writable by {getpass.getuser()}"
    return None


def hint(path: Path) -> str:
    user = getpass.getuser()
    return f"make {path} a folder {user} can write: chown -R {user} {path} && chmod -R u+rwX {path}"


def problems(folders: list[Path]) -> list[Problem]:
    """One {folder, problem, hint} per culprit, for the folders the runner writes to."""
    found: dict[Path, Problem] = {}
    for folder in folders:
        bad = culprit(folder)
        if bad is not None and bad[0] not in found:
            found[bad[0]] = {
                "folder": str(folder),
                "problem": f"cannot write to {folder}: {bad[1]}",
                "hint": hint(bad[0]),
            }
    return list(found.values())
