"""What a crawl running now reports about itself, for `monodex status`: one JSON file per crawl
process under `crawls_dir` (the runner's, or a `monodex crawl` without one), with its progress
and its memory against `crawl.max_memory_mb`. Written by the crawl; a file whose process is gone
(killed) is removed by the next reader."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from pathlib import Path
from typing import cast

from monodex.disk import jsonfile
from monodex.observe import rss
from monodex.schema.status import RunningCrawl

# The phase a crawl reports before it knows its files (then "index", and "dense" for phase two).
PLANNING = "plan"


def new_file(crawls_dir: Path) -> Path:
    """A file of this crawl's own (a runner may run two crawls at once)."""
    return crawls_dir / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.json"


def write(path: Path, record: RunningCrawl) -> None:
    """Never fails the crawl: the record is only for status."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        jsonfile.write_atomic(path, record)


def remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink(missing_ok=True)


def running(crawls_dir: Path) -> list[RunningCrawl]:
    """The crawls running now, oldest first, each with its process's memory read now."""
    out = []
    for f in sorted(crawls_dir.glob("*.json")) if crawls_dir.is_dir() else []:
        try:
            record = cast(RunningCrawl, json.loads(f.read_text()))
            pid = int(record["pid"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being replaced, or not ours
        if not rss.alive(pid):
            remove(f)
            continue
        workers = [int(w) for w in record.get("worker_pids", []) if rss.alive(int(w))]
        now = [rss.resident_mb(p) for p in (pid, *workers)]
        if all(m is not None for m in now):
            record["rss_mb"] = round(sum(m for m in now if m is not None))
        out.append(record)
    return sorted(out, key=lambda r: r.get("started_at", 0))
