"""Hostile files (issue 12): each generated file chunked once, in this process.

Usage: .venv/bin/python bench/hostile.py [NAME ...] [--scale F]
Prints size, chunks, the largest chunk in bytes, seconds, and the outcome (normal, degraded,
fallback; byte-split when lines were cut) per file, against the budget (802 bytes, the packaged
MiniLM's) and the target: every file chunks in under 2 s. --scale 0.01 shrinks every file (a quick
check that the bench runs). The files are the tests' (tests/indexer/chunkers/conftest.py).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import peak_rss_mb, table  # noqa: E402
from monodex.indexer import chunkers  # noqa: E402
from monodex.indexer.chunkers.base import Chunk, FileContext  # noqa: E402

BUDGET = chunkers.budget_for(256)
TARGET_SECONDS = 2.0
FILES = Path(__file__).resolve().parents[1] / "tests" / "indexer" / "chunkers" / "conftest.py"


def _generators() -> object:
    spec = importlib.util.spec_from_file_location("hostile_conftest", FILES)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def outcome(chunks: list[Chunk]) -> str:
    marks = Counter(c.breadcrumb.rsplit(":[", 1)[1].rstrip("]") for c in chunks if c.breadcrumb.endswith("]"))
    if not marks:
        return "normal"
    return ", ".join(f"{m} {n}" for m, n in sorted(marks.items()))


def main(argv: list[str]) -> int:
    scale = 1.0
    if "--scale" in argv:
        i = argv.index("--scale")
        scale = float(argv[i + 1])
        del argv[i : i + 2]
    files = _generators().hostile_files(scale)  # type: ignore[attr-defined]
    rows, worst = [], 0.0
    for name in argv or sorted(files):
        strategy, path, text = files[name]
        started = time.perf_counter()
        chunks = chunkers.chunk_file(strategy, text, FileContext(path, "pkg", BUDGET))
        seconds = time.perf_counter() - started
        worst = max(worst, seconds)
        largest = max(len(c.text.encode("utf-8", "surrogatepass")) for c in chunks)
        size = len(text.encode("utf-8", "surrogatepass"))
        ok = "yes" if seconds < TARGET_SECONDS and largest <= BUDGET else "NO"
        rows.append([name, f"{size:,}", len(chunks), largest, f"{seconds:.2f}", ok, outcome(chunks)])
    header = ["file", "bytes", "chunks", "max chunk", "seconds", "ok", "outcome (chunks by marker)"]
    print(table(rows, header))
    print(f"\nbudget {BUDGET} bytes; target < {TARGET_SECONDS} s a file; worst {worst:.2f} s")
    print(f"peak RSS {peak_rss_mb():.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
