"""follow/freshness.describe: whether a label reflects its branch, read only (a label is brought
to its branch by follow/refresh.py, tested beside this)."""

from __future__ import annotations

import shutil

from monodex.indexer.follow import freshness
from monodex.indexer.points import labelmeta

from monodex.disk import paths
from monodex.runner import spool

TS = "export const answer = %d;\n"


def _describe(open_session, label: str = "main"):  # type: ignore[no-untyped-def]
    with open_session() as s:
        cat = s.config().catalog("acme")
        return freshness.describe(s, cat, labelmeta.require_label(s.store, "acme", label))


def test_a_label_is_fresh_at_its_branch_tip_and_stale_after_a_commit(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/a.ts": TS % 1})
    first = repo.head()
    fresh = _describe(open_session)
    assert (fresh["fresh"], fresh["branch"], fresh["branch_commit"], fresh["indexed_commit"]) == (
        True,
        "main",
        first,
        first,
    )
    assert fresh["refresh_pending"] is False and fresh["complete"] is True
    repo.write("src/a.ts", TS % 2)
    second = repo.commit("two")
    stale = _describe(open_session)
    assert (stale["fresh"], stale["branch_commit"], stale["indexed_commit"]) == (False, second, first)
    queue = spool.default(paths.resolve().state_dir)
    queue.enqueue(
        spool.refresh_request(
            "acme", "main", repo=repo.path, ref="refs/heads/main", commit=second, hook="cli", at=1.0
        )
    )
    assert _describe(open_session)["refresh_pending"] is True  # a spool entry for it: pending
    with open_session() as s:  # describing wrote nothing: the label is where it was
        assert labelmeta.require_label(s.store, "acme", "main").commit_oid == first


def test_a_repository_gone_is_a_problem_with_its_fix_not_an_error(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/a.ts": TS % 1})
    shutil.rmtree(repo.path)
    found = _describe(open_session)
    assert found["fresh"] is None and "missing" in found["problem"]
    assert found["hint"] == "if the repository moved: monodex catalog add acme NEWPATH --force"


def test_a_label_no_branch_maps_to_has_no_freshness(crawl_files, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/a.ts": TS % 1})
    repo.git("tag", "v1")
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "v1", "--commit", "v1", "--json")
    assert code == 0, err
    found = _describe(open_session, "v1")
    assert found["fresh"] is None and found["branch"] is None and "branch_gone" not in found
