"""Just enough of git's on-disk layout for a hook: find the git dir, read HEAD and refs.

Stdlib only (dulwich costs ~100 ms to import; a hook must add almost nothing to `git commit`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

_SHA = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
REBASE_DIRS = ("rebase-merge", "rebase-apply")


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


@dataclass(frozen=True)
class Head:
    """Where HEAD was while git waited for the hook: the branch that moved and its commit."""

    ref: str | None  # refs/heads/main; None when detached
    commit: str | None  # None: unborn branch, or HEAD could not be read
    rebasing: str | None = None  # head-name of a rebase in progress: the branch it will move


def capture(dirs: GitDirs) -> Head:
    """HEAD from the files, in this process (the pre-commit path: before it forks)."""
    ref, commit = head(dirs)
    return Head(ref, commit, rebase_head_name(dirs.git_dir))


def parse_captured(text: str, rebasing: str) -> Head | None:
    """What the hook script captured: `git rev-parse --git-dir HEAD --symbolic-full-name HEAD`
    (git dir, commit, refs/heads/<branch> or "HEAD" when detached; on an unborn branch git
    prints no commit) and the rebase's head-name. None when the output is not of that shape."""
    lines = text.splitlines()
    if len(lines) == 2 and lines[1] == "HEAD":
        return Head(None, None, rebasing or None)  # unborn: nothing to index yet
    if len(lines) != 3 or not _SHA.match(lines[1]):
        return None
    symbolic = lines[2]
    if symbolic != "HEAD" and not symbolic.startswith("refs/"):
        return None
    return Head(None if symbolic == "HEAD" else symbolic, lines[1], rebasing or None)


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


def branches(dirs: GitDirs) -> list[str]:
    """Every local branch's name, from the loose refs and packed-refs (which branch gets which
    label depends on the others: monodex/branchlabels.py). A ref store git keeps otherwise (a
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
