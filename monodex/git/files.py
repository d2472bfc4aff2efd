"""git's layout on disk, read without starting a process: a hook runs inside `git commit` and
must add almost nothing to it (dulwich costs ~100 ms to import, a `git` process a few ms).
Stdlib only."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

REBASE_DIRS = ("rebase-merge", "rebase-apply")


@dataclass(frozen=True)
class GitDirs:
    worktree: Path
    git_dir: Path  # per-worktree dir (HEAD lives here)
    common_dir: Path  # shared dir (refs, hooks, config)


def find(start: Path) -> GitDirs | None:
    """The checkout `start` is in (GIT_DIR and GIT_WORK_TREE first, as git does), else None."""
    env = os.environ.get("GIT_DIR")
    if env:
        git_dir = Path(env) if os.path.isabs(env) else start / env
        return _dirs(Path(os.environ.get("GIT_WORK_TREE") or start), git_dir)
    for folder in (start, *start.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return _dirs(folder, dot)
        target = _gitdir_file(folder)
        if target is not None:  # a linked worktree or submodule: "gitdir: <path>"
            return _dirs(folder, target)
    return None


def _gitdir_file(worktree: Path) -> Path | None:
    """The git dir a `.git` file names (a linked worktree's own, a submodule's), else None."""
    try:
        text = (worktree / ".git").read_text(errors="replace").strip()
    except OSError:  # no such file, or a folder
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[7:].strip())
    return target if target.is_absolute() else worktree / target


def _common(git_dir: Path) -> Path:
    """The shared git dir of a worktree's own git dir (its `commondir` file names it)."""
    try:
        rel = (git_dir / "commondir").read_text().strip()
    except OSError:
        return git_dir.resolve()
    return (Path(rel) if os.path.isabs(rel) else git_dir / rel).resolve()


def _dirs(worktree: Path, git_dir: Path) -> GitDirs:
    return GitDirs(worktree.resolve(), git_dir.resolve(), _common(git_dir))


def common_dir(repo: Path) -> Path | None:
    """The common git dir of the repository checked out (or bare) at `repo`: the main checkout,
    a linked worktree and the bare repository itself all answer the same; None for no repository."""
    dot = repo / ".git"
    if dot.is_dir():
        return _common(dot)
    target = _gitdir_file(repo)
    if target is not None:  # None when that git dir is gone (a worktree pruned under it)
        return _common(target) if target.is_dir() else None
    if not dot.exists() and (repo / "HEAD").is_file():  # a bare repository is its own git dir
        return _common(repo)
    return None


def head_branch(worktree: Path) -> str | None:
    """The branch checked out in the worktree, read from its HEAD file; None when detached or
    unreadable (a worktree that is gone)."""
    dot = worktree / ".git"
    git_dir = dot if dot.is_dir() else _gitdir_file(worktree)
    try:
        text = (git_dir / "HEAD").read_text(encoding="utf-8").strip() if git_dir else ""
    except OSError:
        return None
    prefix = "ref: refs/heads/"
    return text.removeprefix(prefix) if text.startswith(prefix) else None


def top(folder: Path) -> Path | None:
    """The worktree holding `folder` (the nearest folder up with a `.git`), or None."""
    for candidate in (folder, *folder.parents):
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def head(dirs: GitDirs) -> tuple[str | None, str | None]:
    """(branch ref like refs/heads/main or None when detached, commit sha or None)."""
    text = (dirs.git_dir / "HEAD").read_text().strip()
    if text.startswith("ref:"):
        ref = text[4:].strip()
        return ref, read_ref(dirs, ref)
    return None, text or None


def rebase_head_name(git_dir: Path) -> str | None:
    """The branch a rebase in progress started from ("detached HEAD" when none), else None."""
    for name in REBASE_DIRS:
        try:
            return (git_dir / name / "head-name").read_text().strip() or None
        except OSError:
            continue
    return None


def returned_to(dirs: GitDirs, commit: str) -> str | None:
    """The branch a finished rebase re-attached HEAD to at `commit`, from HEAD's reflog
    ("rebase (finish): returning to refs/heads/x"); None until git has written that line."""
    try:
        with open(dirs.git_dir / "logs" / "HEAD", "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 16384))
            tail = fh.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None
    for line in reversed(tail):
        fields, _, message = line.partition("\t")
        parts = fields.split(" ")
        found = re.search(r"returning to (refs/heads/\S+)$", message)
        if len(parts) > 1 and parts[1] == commit and found:
            return found[1]
    return None


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


def origin_head(dirs: GitDirs) -> str | None:
    """Where refs/remotes/origin/HEAD points (refs/remotes/origin/main), when it is a loose
    symbolic ref (as a clone writes it); else None."""
    remote = dirs.common_dir / "refs" / "remotes" / "origin" / "HEAD"
    try:
        text = remote.read_text().strip() if remote.is_file() else ""
    except OSError:
        return None
    return text[4:].strip() if text.startswith("ref:") else None


def branches(dirs: GitDirs) -> list[str]:
    """Every local branch's name, from the loose refs and packed-refs (which branch gets which
    label depends on the others: monodex/labels/branchlabels.py). A ref store git keeps otherwise (a
    reftable) lists none here."""
    heads = dirs.common_dir / "refs" / "heads"
    found: set[str] = set()
    for folder, _, files in os.walk(heads):
        rel = Path(folder).relative_to(heads)
        found.update(str(rel / f) if str(rel) != "." else f for f in files if not f.endswith(".lock"))
    packed = dirs.common_dir / "packed-refs"
    try:
        lines = packed.read_text(errors="replace").splitlines() if packed.is_file() else []
    except OSError:
        lines = []
    for line in lines:
        ref = line.partition(" ")[2]
        if ref.startswith("refs/heads/"):
            found.add(ref.removeprefix("refs/heads/"))
    return sorted(found)


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
