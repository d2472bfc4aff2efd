"""A repository's local branches and their commits, read by git itself.

`git for-each-ref refs/heads/` costs ~3 ms on any repository. dulwich, asked for the same, parses
and validates every line of packed-refs: on microsoft/rushstack (25,592 refs, mostly tags) that
was ~150 ms, paid by every search answer's freshness line."""

from __future__ import annotations

import subprocess
from pathlib import Path


def branch_heads(repo: Path) -> dict[str, str] | None:
    """{branch: commit} of the repository's local branches, or None when it cannot be read."""
    try:
        out = subprocess.run(
            ["git", "-C", str(repo), "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {ref.removeprefix("refs/heads/"): oid for oid, ref in pairs}


def unreadable(name: str, repo: Path) -> tuple[str, str]:
    """Why catalog `name`'s branches cannot be read (branch_heads gave None), and the fix."""
    hint = f"if the repository moved: monodex catalog add {name} NEWPATH --force"
    if not repo.is_dir():
        return f"the repository of catalog {name!r} is missing at {repo}", hint
    return f"cannot read the branches of {repo} (catalog {name!r}): is it still a git repository?", hint
