"""Shared bench plumbing: repositories to measure on, timing, peak RSS, results file."""

from __future__ import annotations

import os
import resource
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

WORK = Path(__file__).resolve().parent / ".work"


def mirrors() -> Path:
    """Where the measured repositories live: $MONODEX_BENCH_MIRRORS, else bench/.mirrors."""
    return Path(os.environ.get("MONODEX_BENCH_MIRRORS") or Path(__file__).resolve().parent / ".mirrors")


def missing_mirror(name: str, root: Path) -> str:
    """How to get a repository the benchmarks measure (name is owner+repo)."""
    owner, repo = name.split("+", 1)
    target = root / name / "repo"
    return (
        f"{target} is missing: the benchmarks measure public repositories cloned there; run\n"
        f"  git clone --mirror https://github.com/{owner}/{repo}.git {target}\n"
        "or set MONODEX_BENCH_MIRRORS to a folder holding <owner>+<repo>/repo clones"
    )


def checkout(name: str, *, rev: str = "HEAD", files: bool = False) -> Path:
    """A clone of a mirror (owner+repo) under bench/.work, sharing its objects.

    Without `files` the work tree stays empty: commit crawls read git objects only.
    """
    mirror = mirrors() / name / "repo"
    if not mirror.exists():
        raise SystemExit(missing_mirror(name, mirrors()))
    target = WORK / name
    if not target.exists():
        WORK.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(target)], check=True
        )
    subprocess.run(
        ["git", "-C", str(target), "checkout", "-q", "--detach", rev]
        if files
        else ["git", "-C", str(target), "update-ref", "--no-deref", "HEAD", rev],
        check=True,
    )
    return target


def first_parent(repo: Path, head: str, count: int, hint: str = "") -> list[str]:
    """`head` and its first-parent ancestors, `count` commits in all (head first)."""
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-list", "--first-parent", f"--max-count={count}", head],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    if len(out) < count:
        raise SystemExit(f"{head} has only {len(out)} first-parent commits{hint}")
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextmanager
def timer(results: dict[str, float], key: str) -> Iterator[None]:
    t0 = time.perf_counter()
    yield
    results[key] = time.perf_counter() - t0


XDG_KEYS = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR")


@contextmanager
def _xdg_under(root: Path) -> Iterator[Path]:
    """Point the four XDG variables into `root` (one folder each) and restore them afterwards."""
    old = {k: os.environ.get(k) for k in XDG_KEYS}
    for k in XDG_KEYS:
        d = root / k.lower()
        d.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.environ[k] = str(d)
    try:
        yield root
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def isolated_xdg() -> Iterator[Path]:
    """A throwaway monodex installation (config, index, state) for one bench run."""
    with tempfile.TemporaryDirectory(prefix="monodex-bench-") as tmp, _xdg_under(Path(tmp)) as root:
        yield root


@contextmanager
def persistent_xdg(name: str) -> Iterator[Path]:
    """A monodex installation kept under bench/.work between runs (a crawl done once is reused)."""
    with _xdg_under(WORK / f"xdg-{name}") as root:
        yield root


def table(rows: list[list[object]], header: list[str]) -> str:
    cells = [header, *[[str(c) for c in r] for r in rows]]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    fmt = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    out = [fmt.format(*header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [fmt.format(*r) for r in cells[1:]]
    return "\n".join(out)


ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "benchmarks.md"


def build_id() -> str:
    """This checkout's commit, `+` when it has changes: the build a recorded row measured."""
    git = ["git", "-C", str(ROOT)]
    sha = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout
    dirty = subprocess.run(
        [*git, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    return sha.strip() + ("+" if dirty.stdout.strip() else "")


def record(heading: str, rows: list[list[object]], *, results: Path = RESULTS) -> None:
    """Append `rows` to the first table after the line starting with `heading` in
    docs/benchmarks.md (a bench's --record): the table keeps every recorded run."""
    lines = results.read_text().splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith(heading)), None)
    if start is None:
        raise SystemExit(f"{results} has no section '{heading}': add it (with its table's header) first")
    first = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("|")), None)
    if first is None or any(lines[i].startswith("#") for i in range(start + 1, first)):
        raise SystemExit(f"the section '{heading}' of {results} has no table to add a row to")
    end = first
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    columns = lines[first].count("|") - 1
    for row in rows:
        if len(row) != columns:
            raise SystemExit(f"a row of {len(row)} cells for a table of {columns} columns under '{heading}'")
    lines[end:end] = ["| " + " | ".join(str(c) for c in row) + " |\n" for row in rows]
    results.write_text("".join(lines))
    print(f"recorded {len(rows)} row(s) under '{heading}' in {results}")
