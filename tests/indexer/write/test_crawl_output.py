"""The crawl's output for unchanged files is pinned (issue 36): speeding phase one up (other
processes, batches, caches) must not change a chunk id, a payload or a lexical vector, or every
index built before would be re-crawled and every retrieval figure would move by accident.

The golden file holds, per point id, a digest of the payload (less what names the run: the label
keys, which carry a time, and the repository's temp path) and of the stored sparse vector. It is
written by main's code without issue 36's changes (0394e31, POINT_FORMAT 3), never by the code it
checks. After a deliberate change of the output (a chunker's version, the point format), rewrite it
from that change alone: MONODEX_WRITE_GOLDEN=1 ./dev test this file.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
import qdrant_edge as qe
from monodex.indexer.store.edge import EdgeStore

from monodex.disk import paths
from monodex.main import main
from monodex.settings import config
from tests.commands.conftest import MONOREPO
from tests.indexer.chunkers.configs import CONFIGS
from tests.indexer.chunkers.polyglot import SOURCES

GOLDEN = Path(__file__).with_name("crawl_output.golden.json")
# Named by the run, not by the file: the base key has a time in it, source_uri the repo's path.
VOLATILE = ("active_label_ids", "source_uri")

CHANGELOG = "# Change Log - @acme/net\n\n## 1.2.0\n\n### Minor changes\n\n- Retry with backoff\n"
FILES: dict[str, str | bytes] = {
    **MONOREPO,
    **{path: text for path, text in SOURCES.values()},
    **{path: text for path, text in CONFIGS.values()},
    "libraries/net/CHANGELOG.md": CHANGELOG,
    "docs/setup.txt": "Install the tools.\n" * 40,
    # a file longer than the budget: split into pieces that tile it
    "libraries/net/src/table.ts": "".join(f"export const v{i}: number = {i};\n" for i in range(400)),
}


def stored_points(store: Any) -> dict[str, str]:
    """point id -> digest of its payload (less VOLATILE) and its stored lexical vector."""
    assert isinstance(store, EdgeStore)
    shard = store._open()
    out: dict[str, str] = {}
    offset = None
    code = qe.Filter(must=[qe.FieldCondition(key="source_type", match=qe.MatchValue("code"))])
    while True:
        req = qe.ScrollRequest(offset=offset, limit=500, filter=code, with_payload=True, with_vector=True)
        recs, offset = shard.scroll(req)
        for r in recs:
            payload = {k: v for k, v in dict(r.payload).items() if k not in VOLATILE}
            sparse = (r.vector or {}).get("lexical")
            vec = [list(sparse.indices), [round(v, 6) for v in sparse.values]] if sparse else None
            blob = json.dumps([payload, vec], sort_keys=True).encode()
            out[str(r.id)] = hashlib.sha256(blob).hexdigest()
        if offset is None or not recs:
            return out


def crawl_points(git_repo: Any, open_session: Any, *extra: str) -> dict[str, str]:
    repo = git_repo(FILES, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    args = ["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense"]
    assert main([*args, "--no-compact", "--json", *extra]) == 0
    with open_session() as s:
        return stored_points(s.store)


def test_a_crawl_stores_exactly_the_points_it_stored_before(git_repo: Any, open_session: Any) -> None:
    points = crawl_points(git_repo, open_session)
    if os.environ.get("MONODEX_WRITE_GOLDEN"):
        GOLDEN.write_text(json.dumps(points, indent=0, sort_keys=True) + "\n")
        pytest.skip("golden file written")
    golden = json.loads(GOLDEN.read_text())
    assert len(points) > 60  # every strategy, several chunks each
    assert sorted(points) == sorted(golden), "chunk ids moved"
    changed = [i for i in golden if points[i] != golden[i]]
    assert not changed, f"{len(changed)} points store other payloads or lexical vectors"


def test_worker_processes_and_memory_rolls_store_the_same_points(git_repo: Any, open_session: Any) -> None:
    """A large crawl prepares its files in worker processes (prepare/pool.py) and rolls the
    store to stay under its memory ceiling (write/memory.py): both forced here on the same
    files, it stores exactly the golden points."""
    from monodex.indexer.git import gitobjects
    from monodex.indexer.git.plan import plan_commit
    from monodex.indexer.policy import crawlpolicy
    from monodex.indexer.write.crawl import Crawl, CrawlSettings
    from monodex.indexer.write.memory import MemoryWatch
    from monodex.indexer.write.request import Request

    repo = git_repo(FILES, name="acme")
    with open_session() as s, gitobjects.open_repo(repo.path) as git:
        commit = git.resolve("HEAD")
        plan = plan_commit(git, commit, crawlpolicy.load(git.workdir, paths.resolve()), "acme")
        target = Request(config.Catalog("acme", repo.path), "main", commit)
        settings = CrawlSettings(two_phase=True, workers=2, workers_from=1, upload_points=16)
        watch = MemoryWatch(1)  # any crawl is past a 1 MB ceiling
        watch.min_points = 16
        crawl = Crawl(s.store, s.engine, target, settings=settings, watch=watch)
        summary = crawl.run(plan.files, plan.reader)
        points = stored_points(s.store)
    assert summary.files_embedded == len(plan.files) and watch.rolls >= 2
    assert len(watch.workers) == 2
    assert points == json.loads(GOLDEN.read_text())
