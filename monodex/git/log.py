"""`git log`: which files each commit touched, for the history signal (indexer/history/changed.py
parses it, history/catchup.py keeps the counts current) and the evaluation's questions
(indexer/evaluate/questions.py). Only paths and, for questions, titles are read."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from monodex.git.cli import Error, lines, run, run_bytes


def rename_options(repo: Path) -> list[str]:
    """How to follow renames, the first to try first. By content (`-M`) reads the files a commit
    added and deleted; a partial clone lacks most of them and git would fetch each from its
    remote, so there, and wherever a file cannot be read, only exact renames are followed
    (`-M100%`: found by object id, no content read; a folder moved whole)."""
    return ["-M100%"] if _partial_clone(repo) else ["-M", "-M100%"]


# git's memory while it walks a history, bounded: its defaults (a 96 MB cache of delta bases, pack
# windows mapped up to 8 GB) made the first walk of rushstack's 23,157 commits a 322 MB process
# (95 MB anonymous, 227 MB of mapped pack) beside the crawl that started it, at the crawl's own peak:
# 777 MB summed against 455 MB for the crawl alone. With these, 54 MB at the same CPU (1.2 s user).
BOUNDED = (
    "-c",
    "core.deltaBaseCacheLimit=16m",
    "-c",
    "core.packedGitLimit=64m",
    "-c",
    "core.packedGitWindowSize=16m",
)


def files_per_commit_lines(
    repo: Path, commit: str, *, stop_at: Sequence[str] = (), max_commits: int, renames: str = "-M"
) -> Iterator[str]:
    """`git log` of the commits reachable from `commit` but not from any of `stop_at`, newest
    first, with the files each touched and its renames (records start with NUL: "oid time
    parents\x01subject", then --name-status lines), read as git prints them: a first walk of a long history
    holds one line at a time (babel's 18,609 commits at once were 89 MB of Python). Raises
    cli.Error at the end when git failed (what was yielded is then incomplete)."""
    env = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}  # honoured by recent git; older: -M100% after -M
    fmt = "--format=%x00%H %ct %P%x01%s"
    args = [*BOUNDED, "log", f"--max-count={max_commits}", fmt, "--name-status", renames]
    args.append(commit)
    if stop_at:
        args += ["--not", *stop_at]
    return lines(repo, *args, env=env)


def files_per_commit(repo: Path, commit: str, *, stop_at: Sequence[str] = (), max_commits: int) -> str:
    """files_per_commit_lines()'s text at once, with the first rename option git takes (see
    rename_options). Raises cli.Failed."""
    tries = rename_options(repo)
    for n, renames in enumerate(tries, start=1):
        try:
            return "".join(
                files_per_commit_lines(
                    repo, commit, stop_at=stop_at, max_commits=max_commits, renames=renames
                )
            )
        except Error:
            if n == len(tries):
                raise
    return ""


def _partial_clone(repo: Path) -> bool:
    """Whether the repository was cloned with a filter (`--filter=blob:none`, ...)."""
    return run(repo, "config", "--get", "extensions.partialclone", check=False, timeout=30).returncode == 0


def first_parent(repo: Path, commit: str, *, max_commits: int, fmt: str) -> bytes:
    """`git log --first-parent` from `commit` back, newest first, in `fmt`, each commit with the
    names of the files it changed against its first parent (a merge: what the merge brought in).
    Raises cli.Failed."""
    args = [*BOUNDED, "-c", "core.quotePath=false", "log", "--first-parent", "--diff-merges=first-parent"]
    args += ["--no-renames", "--name-only", f"--max-count={max_commits}", f"--format={fmt}", commit, "--"]
    return run_bytes(repo, *args, timeout=600).stdout
