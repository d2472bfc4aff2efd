"""follow/refresh.py, the one refresh path: a spool entry's refresh, a reader's bring_to (in this
process, or queued to the runner's drain and waited for), the one place the indexer queues an
entry, and phase two's fill within a bound."""

from __future__ import annotations

import time

from monodex.indexer.follow import refresh
from monodex.indexer.points import labelmeta
from monodex.indexer.write import fill
from monodex.scheduler import jobs

from monodex import names
from monodex.disk import paths
from monodex.labels import known_labels
from monodex.runner import spool

TS = "export function feature%d(): string {\n  return 'feature number %d lives here';\n}\n"


def _repo(crawl_files):  # type: ignore[no-untyped-def]
    repo = crawl_files({"src/base.ts": TS % (0, 0)})
    repo.write("src/one.ts", TS % (1, 1))
    return repo, repo.commit("one")


def test_bring_to_refreshes_in_this_process_and_records_the_branch(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo, head = _repo(crawl_files)
    with open_session() as s:
        cat = s.config().catalog("acme")
        deadline = time.monotonic() + 60
        done = refresh.bring_to(s, cat, "main", ref="refs/heads/main", commit=head, deadline=deadline)
        # phase one's own counts: one new file stored; base.ts unchanged since the label's commit
        assert done is not None and (done.files_stored, done.files_reused) == (1, 0)
        state = labelmeta.require_label(s.store, "acme", "main")
        assert state.commit_oid == head and state.crawl_complete and state.extra["branch"] == "main"
        assert fill.pending(s.store, names.label_id("acme", "main")) > 0  # vectors are phase two's
        assert refresh.fill_until(s, cat, "main", time.monotonic() + 120)
        assert fill.pending(s.store, names.label_id("acme", "main")) == 0
    assert spool.default(paths.resolve().state_dir).pending() == []  # nothing queued: done here


def test_bring_to_stops_at_its_deadline_and_the_label_stays_where_it_was(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo, head = _repo(crawl_files)
    with open_session() as s:
        cat = s.config().catalog("acme")
        before = labelmeta.require_label(s.store, "acme", "main").commit_oid
        assert refresh.bring_to(s, cat, "main", ref="refs/heads/main", commit=head, deadline=0.0) is None
        state = labelmeta.require_label(s.store, "acme", "main")
        assert state.commit_oid == before != head


def test_inside_the_runner_bring_to_queues_the_entry_and_waits_for_the_drain(
    crawl_files, open_session
) -> None:  # type: ignore[no-untyped-def]
    repo, head = _repo(crawl_files)
    queue = spool.default(paths.resolve().state_dir)
    seen: list[spool.Request] = []
    with open_session(shared=True) as s:

        def drain() -> None:  # what the runner's wake does, here in the caller's thread
            seen.extend(queue.requests_for("acme:main"))
            jobs.drain(queue, lambda r: refresh.refresh_label(s, r))

        s.wake = drain
        done = refresh.bring_to(
            s,
            s.config().catalog("acme"),
            "main",
            ref="refs/heads/main",
            commit=head,
            deadline=time.monotonic() + 60,
        )
        assert done is not None and done.files_stored is None  # the runner's crawl: no counts here
        assert labelmeta.require_label(s.store, "acme", "main").commit_oid == head
    [entry] = seen  # queued once, as a hook would, but asked for: hook "cli"
    assert (entry.catalog, entry.label, entry.ref, entry.commit, entry.hook) == (
        "acme",
        "main",
        "refs/heads/main",
        head,
        "cli",
    )
    assert entry.repo == str(repo.path)


def test_a_hooks_entry_for_a_label_removed_by_hand_is_not_refreshed(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    repo, head = _repo(crawl_files)
    state_dir = paths.resolve().state_dir
    known_labels.remove(state_dir, "acme", "main")
    hook = spool.refresh_request(
        "acme", "main", repo=repo.path, ref="refs/heads/main", commit=head, hook="post-commit", at=1.0
    )
    with open_session() as s:
        answer = refresh.refresh_label(s, hook)
        assert answer == {
            "catalog": "acme",
            "label": "main",
            "not_refreshed": "removed with 'monodex labels rm'",
        }
        asked = spool.refresh_request(
            "acme", "main", repo=repo.path, ref="refs/heads/main", commit=head, hook="cli", at=1.0
        )
        assert refresh.refresh_label(s, asked)["commit"] == head  # asked for by a command: refreshed


def test_an_entry_goes_to_where_its_branch_points_now(crawl_files, open_session) -> None:  # type: ignore[no-untyped-def]
    """Hooks write entries in the background: an older commit's entry refreshes to the branch tip."""
    repo, head = _repo(crawl_files)
    first = repo.git("rev-parse", "HEAD~1")
    late = spool.refresh_request(
        "acme", "main", repo=repo.path, ref="refs/heads/main", commit=first, hook="post-commit", at=1.0
    )
    with open_session() as s:
        assert refresh.refresh_label(s, late)["commit"] == head
