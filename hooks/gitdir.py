"""Just enough of git's on-disk layout for a hook: find the git dir, read HEAD and refs.

Stdlib only (dulwich costs ~100 ms to import; a hook must add almost nothing to `git commit`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class GitDirs:
    worktree: Path
    git_dir: Path  # per-worktree dir (HEAD lives here)
    common_dir: Path  # shared dir (refs, hooks, config)


def find(start: Path) -> GitDirs | None:
    env = os.environ.get("GIT_DIR")
    if env:
        git_dir = Path(env) if os.path.isabs(env) else start / env
        return _dirs(Path(os.environ.get("GIT_WORK_TREE") or start), git_dir)
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return _dirs(folder, dot)
        if dot.is_file():  # a linked worktree or submodule: "gitdir: <path>"
            text = dot.read_text().strip()
            if text.startswith("gitdir:"):
                target = Path(text[7:].strip())
                return _dirs(folder, target if target.is_absolute() else folder / target)
    return None


def _dirs(worktree: Path, git_dir: Path) -> GitDirs:
    common = git_dir
    pointer = git_dir / "commondir"
    if pointer.is_file():
        rel = pointer.read_text().strip()
        common = Path(rel) if os.path.isabs(rel) else (git_dir / rel)
    return GitDirs(worktree.resolve(), git_dir.resolve(), common.resolve())


def head(dirs: GitDirs) -> tuple[str | None, str | None]:
    """(branch ref like refs/heads/main or None when detached, commit sha or None)."""
    text = (dirs.git_dir / "HEAD").read_text().strip()
    if text.startswith("ref:"):
        ref = text[4:].strip()
        return ref, read_ref(dirs, ref)
    return None, text or None


def read_ref(dirs: GitDirs, ref: str) -> str | None:
    for base in (dirs.git_dir, dirs.common_dir):
        loose = base / ref
        if loose.is_file():
            return loose.read_text().strip()
    packed = dirs.common_dir / "packed-refs"
    if packed.is_file():
        for line in packed.read_text().splitlines():
            parts = line.split(" ")
            if len(parts) == 2 and parts[1] == ref:
                return parts[0]
    return None


def rebase_in_progress(dirs: GitDirs) -> bool:
    return (dirs.git_dir / "rebase-merge").exists() or (dirs.git_dir / "rebase-apply").exists()


def hooks_path(dirs: GitDirs) -> str | None:
    """core.hooksPath from the repository's config, if set (a tiny reader: section + key)."""
    config = dirs.common_dir / "config"
    if not config.is_file():
        return None
    section = ""
    for raw in config.read_text(errors="replace").splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line.strip("[]").strip().lower()
        elif section == "core" and "=" in line:
            key, value = (p.strip() for p in line.split("=", 1))
            if key.lower() == "hookspath":
                return value
    return None
