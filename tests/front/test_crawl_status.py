"""`monodex status` while a crawl runs without a runner (issue 36): its progress and its memory
against crawl.max_memory_mb, at once (not after waiting for the index the crawl holds), and
nothing once it ended."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from monodex.disk import paths
from monodex.front import render
from monodex.main import main
from monodex.observe import crawlstate
from monodex.settings import config

FILES = {
    f"libraries/lib{i}/src/mod{j}.ts": (
        f"/** Step {j} of library {i}. */\nexport function step{i}x{j}(input: string): string {{\n"
        + "".join(f"  const v{k}: string = input.replace('{k}', 'x{i}{j}{k}');\n" for k in range(6))
        + "  return input;\n}\n"
    )
    # 360 files: seconds of phase two however many sessions embed (the status commands polling
    # it take ~1 s each under load; 72 files ended before one saw them, 1 CI run of 2)
    for i in range(12)
    for j in range(30)
}


def _status() -> tuple[dict[str, Any], float]:
    t0 = time.monotonic()
    out = subprocess.run(
        [sys.executable, "-m", "monodex", "status", "--json"], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), time.monotonic() - t0


def test_status_shows_a_running_crawls_progress_and_memory(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    crawl = subprocess.Popen(  # phase two in the command: seconds of model time to look at
        [sys.executable, "-m", "monodex", "crawl", "--catalog", "acme", "--label", "main", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen: dict[str, Any] | None = None
    try:
        while seen is None and crawl.poll() is None:
            answer, seconds = _status()
            if answer["crawls"]:
                assert seconds < 8  # never waited for the index lock (10 s)
                if answer["crawls"][0]["phase"] != crawlstate.PLANNING:  # its files known
                    seen = answer
            time.sleep(0.1)
    finally:
        out, err = crawl.communicate(timeout=300)
    assert crawl.returncode == 0, err
    assert seen is not None, "status never saw the crawl"
    (record,) = seen["crawls"]
    assert record["catalog"] == "acme" and record["label"] == "main" and record["pid"] == crawl.pid
    assert record["phase"] in ("index", "dense") and record["files_total"] >= 1
    assert 20 < record["rss_mb"] <= record["max_memory_mb"] == 700 and record["peak_rss_mb"] > 20
    assert "in use by the crawl of acme:main" in seen["labels"][0]["error"]
    line = next(ln for ln in render.status(seen).splitlines() if ln.startswith("crawl "))
    assert line.startswith(f"crawl acme:main (pid {crawl.pid}): ") and "ceiling 700 MB" in line
    text = subprocess.run([sys.executable, "-m", "monodex", "status"], capture_output=True, text=True).stdout
    assert "crawl acme:main" not in text  # ended: its record went with it
    after, _ = _status()
    assert after["crawls"] == [] and after["labels"][0]["label"] == "main"


class _FirstUse:
    """The real store, noting what `monodex status` would list as running when the crawl first
    touches it."""

    def __init__(self, store: Any, crawls_dir: Any) -> None:
        self.store, self.crawls_dir = store, crawls_dir
        self.listed: list[dict[str, Any]] | None = None

    def __getattr__(self, name: str) -> Any:
        if self.listed is None:
            self.listed = crawlstate.running(self.crawls_dir)
        return getattr(self.store, name)


def test_a_crawl_is_listed_before_it_touches_the_index(git_repo) -> None:  # type: ignore[no-untyped-def]
    """A status that finds no crawl listed opens the index itself, and so waits for the lock a
    crawl holds: a crawl that listed itself only at its first file made status wait out its
    planning (8 s under load) and then show no crawl at all."""
    from monodex.indexer.session import Session, store
    from monodex.indexer.write import crawlrun
    from monodex.indexer.write.request import Request

    repo = git_repo(dict(list(FILES.items())[:3]), name="acme")
    p = paths.resolve()
    cfg = config.load(p)
    real = store(cfg, p)
    try:
        spy = _FirstUse(real, p.crawls_dir)
        with Session(cfg, p, store=spy) as s:  # type: ignore[arg-type]
            crawlrun.crawl(s, Request(config.Catalog("acme", repo.path), "main", repo.head()), dense="later")
    finally:
        real.close()
    assert spy.listed is not None, "the crawl never used the index"
    (record,) = spy.listed
    assert record["label"] == "main" and record["phase"] == crawlstate.PLANNING
    assert crawlstate.running(p.crawls_dir) == []  # gone once it ended


def test_the_mcp_status_schema_takes_a_crawl_record_with_keys_missing() -> None:
    """A crawl's record is read back from its file (and a refresh's from the runner's state): the
    MCP status tool's output model declares every key of them optional, as the TypedDicts say
    (total=False), so a record written before its first progress still validates."""
    from monodex.front.mcp_models import model_of
    from monodex.schema.status import Refreshing, RunningCrawl

    crawl = model_of(RunningCrawl).model_validate({"pid": 4242, "catalog": "acme", "label": "main"})
    assert crawl.model_dump(exclude_none=True) == {"pid": 4242, "catalog": "acme", "label": "main"}
    refresh = model_of(Refreshing).model_validate({"label": "acme:main", "state": "interrupted"})
    assert refresh.model_dump(exclude_none=True) == {"label": "acme:main", "state": "interrupted"}
