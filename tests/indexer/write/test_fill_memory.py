"""Phase two under the memory ceiling (issue 36): each vector a fill stores moves its point into
the segment Qdrant Edge keeps in memory, so a fill of a large label held every point it filled
(a 100,000-file monorepo: 673,358). A fill now rolls the store as phase one does, in a command's
fill and across the runner's fill rounds, and every chunk still gets its vector."""

from __future__ import annotations

import threading

from monodex.indexer.follow import refresh
from monodex.indexer.store.base import Filter, Match
from monodex.indexer.write import fill
from monodex.indexer.write.memory import MemoryWatch

from monodex.main import main
from monodex.schema.payload import Key

TS = "export function step%d(input: string): string {\n  return input + '%d';\n}\n"


def _crawled(git_repo, run_json, files: int = 24) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/m{i}.ts": TS % (i, i) for i in range(files)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, out, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"
    )
    assert code == 0 and out["chunks_pending"] >= files, err


def _without_vector(store) -> int:  # type: ignore[no-untyped-def]
    chunks = [r for r in store.scroll(Filter(must=(Match(Key.SOURCE_TYPE, "code"),)), with_vectors=True)]
    assert chunks
    return sum(1 for r in chunks if not r.dense)


def test_a_fill_rolls_the_store_past_its_ceiling_and_every_chunk_gets_its_vector(
    git_repo, run_json, open_session
) -> None:  # type: ignore[no-untyped-def]
    _crawled(git_repo, run_json)
    with open_session() as s:
        waiting = fill.pending(s.store, "acme:main")
        assert _without_vector(s.store) == waiting
        watch = MemoryWatch(1)  # any process is past a 1 MB ceiling
        watch.min_points = 8
        report = fill.fill(s.store, s.engine, "acme:main", round_size=8, watch=watch)
        assert report.filled == waiting and report.pending_after == 0
        assert watch.rolls >= 2  # a roll every 8 vectors or so: each round's writes released
        assert s.store.uncompacted()[0] >= waiting  # rolled, not compacted: the crawl's compaction merges
        assert _without_vector(s.store) == 0


def test_the_runners_fill_rounds_share_one_ceiling(git_repo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    """The runner fills a round at a time (fill.ROUND chunks); the points written since the
    last roll add up across its rounds: a round of fewer points than a roll needs does not roll,
    the rounds together do."""
    _crawled(git_repo, run_json, files=fill.ROUND + 16)
    with open_session(shared=True) as s:
        waiting = fill.pending(s.store, "acme:main")
        watch = MemoryWatch(1)
        watch.min_points = waiting - 4  # more than one round holds
        lock = threading.Lock()
        first = refresh.fill_round(s, "acme:main", should_stop=lambda: False, lock=lock, watch=watch)
        assert first.filled == fill.ROUND and first.pending_after and watch.rolls == 0
        last = refresh.fill_round(s, "acme:main", should_stop=lambda: False, lock=lock, watch=watch)
        assert last.pending_after == 0 and watch.rolls == 1
        assert _without_vector(s.store) == 0
