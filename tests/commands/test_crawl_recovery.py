"""Crash safety of the full crawl, with failures injected into the real store adapter."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
from monodex.indexer import session
from monodex.indexer.git import gitobjects
from monodex.indexer.git.plan import plan_commit
from monodex.indexer.points import labelmeta
from monodex.indexer.points.filters import CODE
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.store.base import Filter, Match, Point
from monodex.indexer.upkeep import gc
from monodex.indexer.write.crawl import Crawl, CrawlSettings
from monodex.indexer.write.request import Request

from monodex.disk import paths
from monodex.errors import MonodexError
from monodex.settings import config
from tests.conftest import label_filter

FUNCS = "\n".join(
    f"/** Step {i} of the build pipeline. */\nexport function step{i}(input: string): string {{\n"
    + "".join(f"  const v{j}: string = input.replace('{j}', 'x{i}{j}');\n" for j in range(8))
    + "  return input;\n}\n"
    for i in range(6)
)


class FlakyStore:
    """The real store, with the Nth upsert (1-based) raising `exc`."""

    def __init__(self, inner: Any, *, fail_on: set[int], exc: BaseException) -> None:
        self.inner = inner
        self.fail_on = fail_on
        self.exc = exc
        self.upserts = 0

    def upsert(self, points: Sequence[Point]) -> None:
        self.upserts += 1
        if self.upserts in self.fail_on:
            raise self.exc
        self.inner.upsert(points)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def engine():  # type: ignore[no-untyped-def]
    eng = session.engine(config.load(paths.resolve()))
    calls = {"texts": 0}
    real = eng.embed_documents

    def counting(texts: Sequence[str]) -> Any:
        calls["texts"] += len(texts)
        return real(texts)

    eng.embed_documents = counting  # type: ignore[method-assign]
    eng.calls = calls  # type: ignore[attr-defined]
    return eng


@pytest.fixture
def repo(monorepo):  # type: ignore[no-untyped-def]
    monorepo.write("libraries/net/src/pipeline.ts", FUNCS)
    monorepo.commit("pipeline")
    return monorepo


def _crawl(store: Any, engine: Any, repo: Any, *, label: str = "main", upload_points: int = 256) -> Any:
    git = gitobjects.open_repo(repo.path)
    commit = git.resolve("HEAD")
    plan = plan_commit(git, commit, crawlpolicy.load(git.workdir, paths.resolve()), "acme")
    target = Request(config.Catalog("acme", repo.path), label, commit)
    settings = CrawlSettings(batch_size=4, upload_points=upload_points, retries=2, backoff_seconds=0)
    return Crawl(store, engine, target, settings=settings).run(plan.files, plan.reader)


def _label_files(store: Any, label_id: str) -> set[str]:
    return {r.payload["file_id"] for r in store.scroll(label_filter(store, label_id))}


def test_upload_failure_reassigns_nothing_and_next_crawl_converges(repo, engine) -> None:  # type: ignore[no-untyped-def]
    store = session.store(config.load(paths.resolve()), paths.resolve())
    first = _crawl(store, engine, repo)
    before = _label_files(store, "acme:main")
    repo.write("libraries/net/src/retry.ts", "export const retries = 7;\n")
    repo.remove("libraries/terminal/src/colors.ts")
    second_commit = repo.commit("change two files")
    flaky = FlakyStore(store, fail_on={2, 3}, exc=MonodexError("connection reset"))
    with pytest.raises(MonodexError) as info:
        _crawl(flaky, engine, repo, upload_points=1)
    assert "re-run" in info.value.hint
    state = labelmeta.read(store, "acme:main")
    assert state is not None and not state.crawl_complete and state.commit_oid == first.commit
    assert before <= _label_files(store, "acme:main")  # nothing left the label
    done = _crawl(store, engine, repo)
    assert done.commit == second_commit and done.files_removed == 2
    state = labelmeta.read(store, "acme:main")
    assert state is not None and state.crawl_complete and state.commit_oid == second_commit
    # Converged: the same file set as a fresh crawl into another label.
    _crawl(store, engine, repo, label="fresh")
    assert _label_files(store, "acme:main") == _label_files(store, "acme:fresh")
    store.close()


def test_interrupted_crawl_resumes_without_reembedding_complete_files(repo, engine) -> None:  # type: ignore[no-untyped-def]
    store = session.store(config.load(paths.resolve()), paths.resolve())
    flaky = FlakyStore(store, fail_on={5}, exc=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt):
        _crawl(flaky, engine, repo, upload_points=1)
    embedded_before = engine.calls["texts"]
    resumed = _crawl(store, engine, repo)
    assert resumed.files_reused >= 2
    assert resumed.files_reused + resumed.files_embedded == resumed.files_total
    total_chunks = store.count(label_filter(store, "acme:main"))
    assert engine.calls["texts"] - embedded_before < total_chunks
    store.close()


def test_gc_deletes_exactly_unlabeled_and_incomplete_leftovers(repo, engine) -> None:  # type: ignore[no-untyped-def]
    store = session.store(config.load(paths.resolve()), paths.resolve())
    _crawl(store, engine, repo)
    kept = store.count(Filter(must=(Match("source_type", CODE),)))
    # Leftovers: an interrupted crawl of another label whose sentinels never landed.
    repo.write("libraries/net/src/pipeline.ts", FUNCS.replace("step", "stage"))
    repo.commit("rename steps")
    flaky = FlakyStore(store, fail_on={3, 4}, exc=MonodexError("boom"))  # the sentinel request
    with pytest.raises(MonodexError):
        _crawl(flaky, engine, repo, label="feature", upload_points=10_000)
    leftovers = store.count(Filter(must=(Match("source_type", CODE),))) - kept
    assert leftovers >= 2
    # An orphan: a chunk no label uses.
    some = next(iter(store.scroll(Filter(must=(Match("source_type", CODE), Match("chunk_ordinal", 1))))))
    orphan_file = some.payload["file_id"]
    orphan_points = [r.id for r in store.scroll(Filter(must=(Match("file_id", orphan_file),)))]
    store.set_payload(orphan_points, {"active_label_ids": []})
    later = time.time() + 2 * gc.IN_PROGRESS_GRACE_SECONDS
    busy = gc.collect(store, "acme", dry_run=True, now=time.time())
    assert busy.skipped_incomplete and busy.incomplete_chunks == 0
    dry = gc.collect(store, "acme", dry_run=True, now=later)
    assert (dry.unlabeled_chunks, dry.incomplete_chunks) == (len(orphan_points), leftovers)
    assert store.count(Filter(must=(Match("source_type", CODE),))) == kept + leftovers
    real = gc.collect(store, "acme", dry_run=False, now=later)
    assert real.as_json()["deleted_chunks"] == len(orphan_points) + leftovers
    assert store.count(Filter(must=(Match("source_type", CODE),))) == kept - len(orphan_points)
    assert orphan_file not in _label_files(store, "acme:main")
    store.close()
