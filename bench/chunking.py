"""Chunking throughput per language (issue 23): each syntax-aware chunker against the line
chunker on the same files, in the same run.

Usage: .venv/bin/python bench/chunking.py [--repos a+b,c+d] [--dir PATH ...] [--max-files N]
Reads every file of each mirror's HEAD ($MONODEX_BENCH_MIRRORS/<owner>+<repo>/repo, git objects
only) that the crawl would read: a strategy by suffix (chunkers/suffixes.py), at most 1 MiB (the
policy's default maxFileBytes), UTF-8, not minified or generated (policy/generated.py). --dir adds
the files of a local folder (languages the mirrors lack: a Python installation's lib/, a C
include/ folder). Prints per strategy: files, MB, chunks, the share of chunks marked fallback,
files/s and MB/s of the strategy's chunker, then of the line chunker on the same files, and the
ratio. Every chunker is warmed up (grammar loaded) before timing. --max-files 20 is a smoke test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import mirrors, missing_mirror, peak_rss_mb, table  # noqa: E402
from monodex.indexer import chunkers  # noqa: E402
from monodex.indexer.chunkers.base import FileContext  # noqa: E402
from monodex.indexer.chunkers.suffixes import strategy_for  # noqa: E402
from monodex.indexer.policy.generated import looks_generated  # noqa: E402

REPOS = ("microsoft+rushstack", "napi-rs+napi-rs", "vuejs+core", "pnpm+pnpm", "tiktok+sparo")
BUDGET = chunkers.budget_for(256)
MAX_BYTES = 1 << 20
Files = dict[str, list[tuple[str, str]]]  # strategy -> [(path, text)]


def _keep(path: str, data: bytes) -> str | None:
    """The file's text when the crawl would chunk it, else None."""
    if len(data) > MAX_BYTES or b"\x00" in data[:8000] or looks_generated(path, data):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def from_mirror(name: str, files: Files, limit: int) -> None:
    repo = mirrors() / name / "repo"
    if not repo.exists():
        raise SystemExit(missing_mirror(name, mirrors()))
    listing = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "HEAD"], capture_output=True, text=True, check=True
    ).stdout
    wanted = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        strategy = strategy_for(path.rsplit("/", 1)[-1])
        if meta.split()[1] == "blob" and strategy != "markdown" and len(files[strategy]) < limit:
            wanted.append((strategy, f"{name}:{path}", meta.split()[2]))
    batch = subprocess.run(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        input="".join(f"{oid}\n" for _, _, oid in wanted).encode(),
        capture_output=True,
        check=True,
    ).stdout
    pos = 0
    for strategy, path, _ in wanted:
        header_end = batch.index(b"\n", pos)
        size = int(batch[pos:header_end].split()[2])
        data = batch[header_end + 1 : header_end + 1 + size]
        pos = header_end + 2 + size
        text = _keep(path, data)
        if text is not None and len(files[strategy]) < limit:
            files[strategy].append((path, text))


def from_dir(root: Path, files: Files, limit: int) -> None:
    for f in sorted(root.rglob("*")):
        strategy = strategy_for(f.name)
        if strategy in ("lineBased", "markdown") or not f.is_file() or len(files[strategy]) >= limit:
            continue
        text = _keep(str(f), f.read_bytes())
        if text is not None:
            files[strategy].append((str(f), text))


def measure(strategy: str, batch: list[tuple[str, str]]) -> tuple[float, int, int]:
    """(seconds, chunks, fallback chunks) of one chunker over the batch."""
    chunkers.chunk_file(strategy, batch[0][1], FileContext(batch[0][0], "pkg", BUDGET))  # warm up
    seconds, count, fallback = 0.0, 0, 0
    for path, text in batch:
        started = time.perf_counter()
        chunks = chunkers.chunk_file(strategy, text, FileContext(path, "pkg", BUDGET))
        seconds += time.perf_counter() - started
        count += len(chunks)
        fallback += sum(c.breadcrumb.endswith(":[fallback-split]") for c in chunks)
    return seconds, count, fallback


def main(argv: list[str]) -> int:
    repos, dirs, limit = list(REPOS), [], 10**9
    while argv:
        flag, value = argv.pop(0), argv.pop(0)
        if flag == "--repos":
            repos = [r for r in value.split(",") if r]
        elif flag == "--dir":
            dirs.append(Path(value))
        elif flag == "--max-files":
            limit = int(value)
        else:
            raise SystemExit(__doc__)
    files: Files = defaultdict(list)
    for name in repos:
        from_mirror(name, files, limit)
    for root in dirs:
        from_dir(root, files, limit)
    rows = []
    for strategy, batch in sorted(files.items()):
        if strategy in ("lineBased", "markdown") or not batch:
            continue
        mb = sum(len(t.encode("utf-8", "surrogatepass")) for _, t in batch) / 1e6
        seconds, count, fallback = measure(strategy, batch)
        base, _, _ = measure("lineBased", batch)
        rows.append(
            [strategy, len(batch), f"{mb:.2f}", count, f"{100 * fallback / max(count, 1):.1f}%"]
            + [f"{len(batch) / seconds:,.0f}", f"{mb / seconds:.2f}"]
            + [f"{len(batch) / base:,.0f}", f"{mb / base:.2f}", f"{seconds / base:.1f}x"]
        )
    header = ["strategy", "files", "MB", "chunks", "fallback", "files/s", "MB/s"]
    header += ["lines files/s", "lines MB/s", "cost vs lines"]
    print(table(rows, header))
    print(
        f"\nrepos: {', '.join(repos) or '-'}; dirs: {', '.join(map(str, dirs)) or '-'}; budget {BUDGET} bytes"
    )
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
