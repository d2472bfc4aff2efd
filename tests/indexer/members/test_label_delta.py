"""A label is a base plus what changed (issue 25): a new label near an existing one, and every move
of a label, write only what differs (no chunk payload is rewritten); a label far from its base
gets a base of its own; removing a label others stand on keeps them whole; gc strips keys of bases
nobody stands on; and an index from before migrates without a re-embed. Real git repositories,
the real Qdrant Edge store and the real model; each label is compared with a full crawl of its
commit into a store of its own."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
from monodex.indexer import session
from monodex.indexer.members import derive, keys
from monodex.indexer.points import filters, labelmeta, membership
from monodex.indexer.session import Session
from monodex.indexer.store.base import Match, Point
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.upkeep import gc, lifecycle
from monodex.indexer.write import crawlrun

from monodex.disk import paths
from monodex.schema.payload import Key
from monodex.settings import config
from monodex.settings.config import Catalog
from tests.conftest import Killed, KilledAt, label_filter

FILES = 40


def _module(i: int, word: str) -> str:
    return f"/** {word} module {i}. */\nexport function {word}Step{i}(input: string): string {{\n  return input + '{i}';\n}}\n"


class Counting:
    """The real store, counting the chunk points each write touches."""

    def __init__(self, store: EdgeStore) -> None:
        self.store = store
        self.payload_points = 0
        self.upserted: list[str] = []

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        self.payload_points += len(ids)
        self.store.set_payload(ids, payload)

    def upsert(self, points: Sequence[Point]) -> None:
        self.upserted += [str(p.payload.get("source_type")) for p in points]
        self.store.upsert(points)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.fixture(scope="module")
def engine() -> Any:
    return session.engine(config.Config())


@pytest.fixture
def world(git_repo, engine, tmp_path):  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/mod{i}.ts": _module(i, "base") for i in range(FILES)}, name="acme")
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})
    live = EdgeStore(tmp_path / "live", "monodex")
    refs = iter(range(100))

    def crawl(label: str, commit: str, store: Any = None) -> dict[str, Any]:
        s = Session(cfg, paths.resolve(), store=store or live, engine=engine)
        return crawlrun.crawl(s, crawlrun.Request(cat, label, commit), dense="later").as_json()

    def reference(commit: str) -> dict[str, str]:
        ref = EdgeStore(tmp_path / "ref", f"r{next(refs)}")
        crawl("main", commit, ref)
        files = files_of(ref, "acme:main")
        ref.close()
        return files

    yield repo, live, crawl, reference
    live.close()


def files_of(store: Any, label_id: str) -> dict[str, str]:
    """path -> file id of every file the label holds, and each file whole (every chunk)."""
    out: dict[str, str] = {}
    counts: dict[str, int] = {}
    for r in store.scroll(
        label_filter(store, label_id), payload_keys=("relative_path", "file_id", "chunk_count")
    ):
        path = str(r.payload["relative_path"])
        assert out.setdefault(path, str(r.payload["file_id"])) == r.payload["file_id"], (
            f"two versions of {path}"
        )
        counts[path] = counts.get(path, 0) + 1
    return out


def _feature(repo: Any, n: int = 1) -> str:
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/mod3.ts", _module(3, "changed"))
    repo.write("src/added.ts", _module(99, "added"))
    repo.remove("src/mod5.ts")
    return repo.commit("feature work")


def test_a_label_one_commit_from_main_writes_only_what_changed(world) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    main = repo.head()
    crawl("main", main)
    feature = _feature(repo)
    counting = Counting(live)
    summary = crawl("feature", feature, counting)
    assert summary["mode"] == "derived" and summary["files_embedded"] == 2  # added.ts, mod3.ts
    assert summary["files_reused"] == summary["files_total"] - 2 == len(reference(feature)) - 2
    assert counting.payload_points == 0  # no chunk of main's 38 shared files was rewritten
    # the two new files' chunks, one delta point and the metadata (marked, then complete)
    assert counting.upserted.count("code") <= 4 and counting.upserted.count(membership.LABEL_DELTA) == 1
    state = labelmeta.read(live, "acme:feature")
    assert state is not None and state.extra[Key.MEMBERSHIP_CHANGED] == 3
    assert state.extra[Key.MEMBERSHIP_BASE] == labelmeta.read(live, "acme:main").extra[Key.MEMBERSHIP_BASE]  # type: ignore[union-attr]
    assert files_of(live, "acme:feature") == reference(feature)
    assert files_of(live, "acme:main") == reference(main)


def test_moving_a_label_rewrites_no_chunk(world) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    crawl("feature", _feature(repo))
    repo.write("src/mod7.ts", _module(7, "later"))
    repo.write("src/mod3.ts", _module(3, "base"))  # back to main's version: no longer a change
    later = repo.commit("more work")
    counting = Counting(live)
    assert crawl("feature", later, counting)["mode"] == "incremental"
    assert counting.payload_points == 0
    state = labelmeta.read(live, "acme:feature")
    assert state is not None and state.extra[Key.MEMBERSHIP_CHANGED] == 3  # added, mod5 gone, mod7
    assert files_of(live, "acme:feature") == reference(later)
    # the delta point it left is gone (one per label), and so is mod3's version it held: a move
    # leaves no chunk that no label holds
    assert len(membership.deltas(live)) == 1
    assert _orphans(live) == 0


def _orphans(store: Any) -> int:
    return store.count(
        filters.catalog_chunks("acme", membership.held_by_none(membership.changed_files(store)))
    )


def test_a_label_far_from_its_base_gets_its_own(world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    main = repo.head()
    crawl("main", main)
    monkeypatch.setattr(derive, "limit", lambda base_files: 2)
    feature = _feature(repo)  # 3 changed paths > 2: too far from main's base
    crawl("feature", feature)
    state, main_state = labelmeta.read(live, "acme:feature"), labelmeta.read(live, "acme:main")
    assert state is not None and main_state is not None
    assert state.extra[Key.MEMBERSHIP_BASE] != main_state.extra[Key.MEMBERSHIP_BASE]
    assert state.extra[Key.MEMBERSHIP_CHANGED] == 0 and state.extra[Key.MEMBERSHIP_DELTA] == ""
    assert files_of(live, "acme:feature") == reference(feature)
    assert files_of(live, "acme:main") == reference(main)


def test_paths_the_policy_leaves_out_do_not_push_a_label_off_its_base(world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A release commit that deletes hundreds of change files (JSON the policy leaves out) and
    touches one module is one path away from main's base, not hundreds (rushstack: a label six
    commits from main was crawled whole)."""
    repo, live, crawl, reference = world
    for i in range(6):
        repo.write(f"common/changes/pkg/change{i}.json", "{}")
    repo.commit("change files")
    main = repo.head()
    crawl("main", main)
    monkeypatch.setattr(derive, "limit", lambda base_files: 2)
    repo.git("checkout", "-q", "-b", "release")
    for i in range(6):
        repo.remove(f"common/changes/pkg/change{i}.json")
    repo.write("src/mod3.ts", _module(3, "released"))
    release = repo.commit("publish")
    summary = crawl("release", release)
    assert summary["mode"] == "derived" and summary["files_embedded"] == 1
    state = labelmeta.read(live, "acme:release")
    assert state is not None and state.extra[Key.MEMBERSHIP_CHANGED] == 1
    assert files_of(live, "acme:release") == reference(release)


def test_removing_a_label_others_stand_on_keeps_them_whole(world, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    feature = _feature(repo)
    crawl("feature", feature)
    lifecycle.remove_label(live, paths.resolve(), "acme", "main")
    assert files_of(live, "acme:feature") == reference(feature)
    # main's base stays while feature stands on it, even the versions feature changed
    assert gc.collect(live, "acme", dry_run=False, now=0).unlabeled_chunks == 0
    assert files_of(live, "acme:feature") == reference(feature)
    lifecycle.remove_label(live, paths.resolve(), "acme", "feature")
    assert live.count(filters.chunks()) == 0 and not membership.deltas(live)


def test_gc_strips_a_base_nobody_stands_on_and_drops_unnamed_deltas(world, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    first = str(labelmeta.read(live, "acme:main").extra[Key.MEMBERSHIP_BASE])  # type: ignore[union-attr]
    monkeypatch.setattr(derive, "limit", lambda base_files: 2)
    repo.write("src/mod1.ts", _module(1, "one"))
    repo.write("src/mod2.ts", _module(2, "two"))
    repo.write("src/mod3.ts", _module(3, "three"))
    moved = repo.commit("three changes")
    with monkeypatch.context() as crash:  # killed right after the switch, before it let go
        crash.setattr(keys, "release", lambda *a: keys.MembershipReport())
        crawl("main", moved)  # too far: main gets a new base, and nobody stands on the first
    assert str(labelmeta.read(live, "acme:main").extra[Key.MEMBERSHIP_BASE]) != first  # type: ignore[union-attr]
    live.upsert([membership.delta_point("acme", "acme:main", "crashed", {"src/x.ts": "f" * 16}, 384)])
    report = gc.collect(live, "acme", dry_run=False, now=0)
    assert report.deltas_dropped == 1 and not membership.deltas(live)
    assert report.unlabeled_chunks == 3  # the old versions of mod1-3
    assert report.keys_stripped > 0 and live.count(filters.chunks(Match(Key.ACTIVE_LABEL_IDS, first))) == 0
    assert files_of(live, "acme:main") == reference(moved)
    # without the crash the move itself lets go: nothing is left for gc
    repo.write("src/mod4.ts", _module(4, "four"))
    repo.write("src/mod5.ts", _module(5, "five"))
    repo.write("src/mod6.ts", _module(6, "six"))
    crawl("main", repo.commit("three more"))
    assert _orphans(live) == 0 and gc.collect(live, "acme", dry_run=False, now=0).keys_stripped == 0


def test_a_new_base_is_written_with_the_chunks_and_a_crash_before_it_is_named_leaves_gc_work(  # type: ignore[no-untyped-def]
    world, engine, monkeypatch
) -> None:
    """A full crawl stores its new files with the key of the base it is making (issue 36): no
    chunk's payload is written a second time. Killed before the label names that base, the key
    names nothing: the label keeps what it held, gc deletes the chunks only that key names, and
    the next crawl converges."""
    repo, live, crawl, reference = world
    counting = Counting(live)
    crawl("main", repo.head(), counting)
    assert counting.payload_points == 0 and counting.upserted.count("code") >= FILES
    main = repo.head()
    for i in range(4):
        repo.write(f"src/new{i}.ts", _module(i, "fresh"))
    later = repo.commit("new files")
    cat = Catalog("acme", repo.path)
    s = Session(config.Config(catalogs={"acme": cat}), paths.resolve(), store=live, engine=engine)

    def killed(*_a: Any, **_k: Any) -> Any:
        raise KeyboardInterrupt  # between storing the files and switching the label

    with monkeypatch.context() as crash:
        crash.setattr(derive, "own_base", killed)
        with pytest.raises(KeyboardInterrupt):
            crawlrun.crawl(s, crawlrun.Request(cat, "main", later, full=True), dense="later")
    assert files_of(live, "acme:main") == reference(main)  # still what it held
    found = {
        k
        for r in live.scroll(filters.chunks(), payload_keys=(Key.ACTIVE_LABEL_IDS,))
        for k in membership.keys_of(r.payload)
    }
    assert len(found) == 2  # main's base, and the one nobody named
    report = gc.collect(live, "acme", dry_run=False, now=time.time() + 2 * gc.IN_PROGRESS_GRACE_SECONDS)
    assert report.unlabeled_chunks == 4  # the new files' chunks: their only key names nothing
    crawl("main", later)
    assert files_of(live, "acme:main") == reference(later)
    assert _orphans(live) == 0


def test_an_index_from_before_migrates_without_a_reembed(world) -> None:  # type: ignore[no-untyped-def]
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    # as monodex wrote it before issue 25: the label id in active_label_ids, no membership fields
    state = labelmeta.read(live, "acme:main")
    assert state is not None
    key = str(state.extra[Key.MEMBERSHIP_BASE])
    ids = [r.id for r in live.scroll(filters.chunks(Match(Key.ACTIVE_LABEL_IDS, key)), payload_keys=())]
    live.set_payload(ids, {Key.ACTIVE_LABEL_IDS: ["acme:main"]})
    old = {k: v for k, v in state.extra.items() if k not in membership.FIELDS}
    labelmeta.write(live, catalog="acme", label="main", dim=384, commit_oid=state.commit_oid,
                    source_kind="git-commit", complete=True, now=0, extra=old)  # fmt: skip
    assert files_of(live, "acme:main") == reference(state.commit_oid)
    repo.write("src/mod9.ts", _module(9, "edited"))
    edited = repo.commit("one edit")
    summary = crawl("main", edited)
    assert summary["mode"] == "incremental" and summary["files_embedded"] == 1
    after = labelmeta.read(live, "acme:main")
    assert after is not None and after.extra[Key.MEMBERSHIP_BASE] == "acme:main"  # the old key is its base
    assert files_of(live, "acme:main") == reference(edited)


def test_a_refresh_killed_at_any_write_and_retried_leaves_no_orphan(world) -> None:  # type: ignore[no-untyped-def]
    """The runner retries a refresh a SIGKILL stopped; whatever write the kill hit, the retry
    leaves no chunk that no label holds (verify's orphan_chunks: a CI run of the SIGKILL probe
    found one after a kill between dropping a moved label's old delta point and deleting the
    file versions only that delta held)."""
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    feature = _feature(repo)
    crawl("feature", feature)  # a delta point naming mod3, added, mod5
    for n in range(64):
        repo.write("src/mod3.ts", _module(3, f"edit{n}"))  # each version held only by the delta
        commit = repo.commit(f"edit {n}")
        try:
            crawl("feature", commit, KilledAt(live, n))
        except Killed:
            crawl("feature", commit)  # the retry after the restart
        else:
            break  # n is past the refresh's last write: every write was a kill point
        assert _orphans(live) == 0, f"killed at write {n}"
        assert files_of(live, "acme:feature") == reference(commit)
    else:
        raise AssertionError("the refresh never ran to its end")
    assert n >= 3  # the kill points covered the chunks, the delta point, the switch and the release


def test_removing_a_label_killed_at_any_write_leaves_no_orphan(world) -> None:  # type: ignore[no-untyped-def]
    """`labels rm` killed part way: what is left is garbage gc collects (a dead key, a delta
    point no label names), never a chunk that nothing names, which verify reports as drift."""
    repo, live, crawl, reference = world
    crawl("main", repo.head())
    feature = _feature(repo)
    for n in range(16):
        crawl("feature", feature)
        try:
            lifecycle.remove_label(KilledAt(live, n), paths.resolve(), "acme", "feature")  # type: ignore[arg-type]
        except Killed:
            assert _orphans(live) == 0, f"killed at write {n}"
            gc.collect(live, "acme", dry_run=False, now=time.time())
        else:
            break
    else:
        raise AssertionError("the removal never ran to its end")
    assert n >= 3 and _orphans(live) == 0 and not membership.deltas(live)
    assert files_of(live, "acme:main") == reference(repo.git("rev-parse", "main").strip())
