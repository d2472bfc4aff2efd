"""follow/ondemand.py: a label indexed when a search asks for it (none yet, or behind the commit
you stand on), and --fresh's wait, each through the one refresh path, in this process."""

from __future__ import annotations

from monodex.indexer.follow import ondemand
from monodex.indexer.points import labelmeta

from monodex.labels import standing

TS = "export function feature%d(): string {\n  return 'feature number %d lives here';\n}\n"


def test_a_branch_nobody_indexed_is_indexed_from_its_tip(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/base.ts": TS % (0, 0)})
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("src/topic.ts", TS % (1, 1))
    tip = repo.commit("topic")
    repo.git("checkout", "-q", "main")
    with open_session() as s:
        cat = s.config().catalog("acme")
        assert ondemand.source(s, cat, "topic", None) == ("refs/heads/topic", tip)
        made = ondemand.ensure(s, cat, "topic", here=None, seconds=60)
        assert made is not None
        facts, note = made
        assert (facts["label"], facts["ref"], facts["commit"]) == ("topic", "refs/heads/topic", tip)
        assert facts["files_reused"] == 1 and facts["files_stored"] == 1  # main's file reused
        assert "was not indexed yet: indexed on demand from branch topic" in note
        assert labelmeta.require_label(s.store, "acme", "topic").commit_oid == tip
        assert ondemand.ensure(s, cat, "topic", here=None, seconds=60) is None  # there now
        assert ondemand.ensure(s, cat, "nothing-names-it", here=None, seconds=60) is None


def test_the_label_you_stand_on_is_caught_up_to_your_checkout(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/base.ts": TS % (0, 0)})
    first = repo.head()
    repo.write("src/one.ts", TS % (1, 1))
    second = repo.commit("one")  # no hook, no runner: the label is still at the first commit
    here = standing.find(repo.path, {"acme": repo.path})
    assert here is not None and here.commit == second
    with open_session() as s:
        cat = s.config().catalog("acme")
        caught = ondemand.catch_up(s, cat, "main", here=here, seconds=60)
        assert caught is not None
        facts, note = caught
        assert (facts["from_commit"], facts["to_commit"]) == (first, second)
        assert f"caught up to {second[:12]}" in note
        assert labelmeta.require_label(s.store, "acme", "main").commit_oid == second
        assert ondemand.catch_up(s, cat, "main", here=here, seconds=60) is None  # at it now


def test_wait_fresh_brings_a_stale_label_to_its_branch_and_says_it_waited(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/base.ts": TS % (0, 0)})
    repo.write("src/one.ts", TS % (1, 1))
    second = repo.commit("one")
    with open_session() as s:
        cat = s.config().catalog("acme")
        found = ondemand.wait_fresh(s, cat, "main", 60)
        assert found["fresh"] is True and found["indexed_commit"] == second
        assert found["wait"]["reached"] is True and found["wait"]["seconds"] == 60
        dense = ondemand.wait_fresh(s, cat, "main", 120, dense=True)
        assert dense["wait"]["dense_reached"] is True and dense["wait"]["reached"] is True
