"""The co-change counts a question from history is ranked with (indexer/evaluate/past.py): only
what had landed before its change, cut by ancestry, so a merged branch's own commits (dated
before the merge) never tell the question where its answers are."""

from __future__ import annotations

import pytest
from monodex.indexer.evaluate import past
from monodex.indexer.history import changed


def _ts(path: str) -> bool:
    return path.endswith(".ts")


def test_a_merged_branch_lands_with_its_merge_not_before_it(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/base.ts": "0\n", "src/other.ts": "0\n"})
    repo.write("src/base.ts", "1\n")
    repo.write("src/other.ts", "1\n")
    before_branch = repo.commit("Change base and other together (#1)")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/a.ts", "a\n")
    repo.write("src/b.ts", "b\n")
    repo.commit("wip: a and b")  # dated before the merge, touching the PR's own files
    repo.git("checkout", "-q", "main")
    repo.write("src/other.ts", "2\n")
    repo.commit("Touch other on main")
    repo.git(
        "merge", "-q", "--no-ff", "feature", "-m", "Merge pull request #2 from me/feature\n\nAdd a and b"
    )
    merge = repo.head()

    commits = list(changed.follow_moves(changed.parse_log(changed.log(repo.path, merge))))
    order, before = past.landed(commits, merge)
    assert [c.oid for c in order][: before[merge]] == [
        repo.git("rev-parse", "HEAD~3"),  # initial
        before_branch,
        repo.git("rev-parse", "HEAD^1"),  # "Touch other on main": not the branch's commit
    ]
    assert len(order) == 5 and order[-1].oid == merge  # the branch's commit lands with the merge

    growing = past.Growing(order, _ts)
    asked = growing.upto(before[merge])
    assert asked.counts(["src/b.ts"], ["src/a.ts"]) == ({}, {})  # nothing learnt from its own PR
    assert asked.counts(["src/other.ts"], ["src/base.ts"])[1] == {("src/base.ts", "src/other.ts"): 2}
    with pytest.raises(ValueError, match="ask oldest first"):
        growing.upto(0)  # the counts only grow: an earlier question asked late would see later commits
    everything = growing.upto(len(order))
    assert everything.counts(["src/b.ts"], ["src/a.ts"])[1] == {("src/a.ts", "src/b.ts"): 1}


def test_parents_are_read_first_parent_first_and_a_root_has_none(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "1\n"})
    root = repo.head()
    repo.git("checkout", "-q", "-b", "side")
    repo.write("b.ts", "1\n")
    side = repo.commit("side")
    repo.git("checkout", "-q", "main")
    repo.write("c.ts", "1\n")
    main = repo.commit("main")
    repo.git("merge", "-q", "--no-ff", "side", "-m", "merge side")
    parsed = {c.oid: c.parents for c in changed.parse_log(changed.log(repo.path, repo.head()))}
    assert parsed[repo.head()] == (main, side)
    assert parsed[root] == ()
