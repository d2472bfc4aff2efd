from __future__ import annotations

import json
import multiprocessing
from dataclasses import asdict
from pathlib import Path

from monodex.runner.spool import MAX_ATTEMPTS, MAX_BACKOFF_SECONDS, Request, Spool, backoff


def req(
    label: str = "main", commit: str = "a" * 40, at: float = 100.0, catalog: str = "acme", attempts: int = 0
) -> Request:
    return Request(
        catalog=catalog,
        label=label,
        repo="/r",
        ref=f"refs/heads/{label}",
        commit=commit,
        hook="post-commit",
        created_at=at,
        attempts=attempts,
    )


def test_claim_coalesces_a_label_to_its_newest_commit(tmp_path: Path) -> None:
    s = Spool(tmp_path)
    for i in range(5):
        s.enqueue(req(commit=f"{i:040d}", at=100.0 + i))
    s.enqueue(req(label="dev", at=99.0))
    first = s.claim(now=200.0)
    assert first is not None and first[0].label == "dev"  # oldest label first
    s.ack(first[1])
    got = s.claim(now=200.0)
    assert got is not None
    request, claimed = got
    assert request.commit == f"{4:040d}" and len(claimed) == 5
    assert s.pending() == [] and s.claim(now=200.0) is None
    s.ack(claimed)
    assert list((tmp_path / "claimed").iterdir()) == []


def test_failure_returns_with_attempts_and_backoff(tmp_path: Path) -> None:
    s = Spool(tmp_path)
    s.enqueue(req())
    request, claimed = s.claim(now=100.0) or (None, [])
    assert request is not None
    again = s.fail(request, claimed, error="qdrant down", now=1000.0)
    assert again.attempts == 1 and again.not_before == 1000.0 + backoff(1)
    assert s.claim(now=1005.0) is None  # not due yet
    retried = s.claim(now=1000.0 + backoff(1))
    assert retried is not None and retried[0].attempts == 1 and retried[0].last_error == "qdrant down"
    assert [backoff(n) for n in (1, 2, 3)] == [10.0, 20.0, 40.0] and backoff(50) == MAX_BACKOFF_SECONDS


def test_claimed_entries_of_a_crashed_runner_are_recovered(tmp_path: Path) -> None:
    s = Spool(tmp_path)
    s.enqueue(req())
    assert s.claim(now=200.0) is not None  # the runner dies here, never acking
    assert s.pending() == []
    assert Spool(tmp_path).recover() == 1
    assert Spool(tmp_path).claim(now=200.0) is not None


def test_malformed_entries_are_quarantined_with_a_reason(tmp_path: Path) -> None:
    s = Spool(tmp_path)
    s.enqueue(req())
    (tmp_path / "new" / "0-bad.json").write_text("{not json")
    (tmp_path / "new" / "1-old.json").write_text(json.dumps({"schema": 99}))
    (tmp_path / "new" / "2-missing.json").write_text(json.dumps({"schema": 1, "label": "x"}))
    got = s.claim(now=200.0)
    assert got is not None and got[0].label == "main"
    reasons = {p.name: p.read_text() for p in (tmp_path / "quarantine").glob("*.reason")}
    assert set(reasons) == {"0-bad.json.reason", "1-old.json.reason", "2-missing.json.reason"}
    assert "not JSON" in reasons["0-bad.json.reason"] and "missing fields" in reasons["2-missing.json.reason"]


def _writer(root: str, worker: int) -> None:
    s = Spool(Path(root))
    for i in range(40):
        s.enqueue(req(label=f"l{worker}", commit=f"{i:040d}", at=1000.0 + i))


def test_concurrent_writers_lose_nothing(tmp_path: Path) -> None:
    procs = [multiprocessing.Process(target=_writer, args=(str(tmp_path), w)) for w in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    s = Spool(tmp_path)
    assert len(s.pending()) == 320 and not list((tmp_path / "tmp").iterdir())
    seen = {}
    while (got := s.claim(now=5000.0)) is not None:
        seen[got[0].label] = (got[0].commit, len(got[1]))
        s.ack(got[1])
    assert seen == {f"l{w}": (f"{39:040d}", 40) for w in range(8)}


def _entry(**changes: object) -> str:
    return json.dumps({**asdict(req(label="bad")), **changes})


MALFORMED = {
    "created_at-string": (_entry(created_at="yesterday"), "created_at: expected a number, got 'yesterday'"),
    "attempts-string": (_entry(attempts="3"), "attempts: expected a whole number, got '3'"),
    "attempts-negative": (_entry(attempts=-1), "attempts: must not be negative"),
    "not_before-string": (_entry(not_before="soon"), "not_before: expected a number, got 'soon'"),
    "not_before-bool": (_entry(not_before=True), "not_before: expected a number, got True"),
    "catalog-number": (_entry(catalog=7), "catalog: expected a string, got 7"),
    "catalog-grammar": (_entry(catalog="Acme Corp"), "invalid catalog name 'Acme Corp'"),
    "label-grammar": (_entry(label="Bad Label:x"), "invalid label name 'Bad Label:x'"),
    "commit-list": (_entry(commit=["a"]), "commit: expected a string"),
    "extra-list": (_entry(extra=[1]), "extra: expected an object"),
    "not-json": ("{not json", "not JSON"),
    "not-utf8": (b"\xff\xfe{}", "not JSON"),
    "wrong-schema": (json.dumps({"schema": 99}), "unsupported schema 99"),
    "schema-string": (_entry(schema="1"), "unsupported schema '1'"),
    "a-list": (json.dumps([1, 2]), "unsupported schema [1, 2]"),
}


def test_every_kind_of_malformed_entry_is_quarantined_and_the_good_ones_still_drain(tmp_path: Path) -> None:
    """One bad entry used to make every claim raise (a string created_at cannot be compared), so
    nothing was refreshed again; now each is set aside with its reason and the queue moves on."""
    s = Spool(tmp_path)
    s.enqueue(req(label="main", at=50.0))
    for i, (raw, _) in enumerate(MALFORMED.values()):
        data = raw if isinstance(raw, bytes) else raw.encode()
        (tmp_path / "new" / f"{i:02d}-bad.json").write_bytes(data)
    s.enqueue(req(label="dev", at=60.0))
    drained = []
    while (got := s.claim(now=200.0)) is not None:
        drained.append(got[0].label)
        s.ack(got[1])
    assert drained == ["main", "dev"] and s.pending() == []
    quarantined = s.quarantined()
    assert [q.name for q in quarantined] == [f"{i:02d}-bad.json" for i in range(len(MALFORMED))]
    for q, (kind, (_, reason)) in zip(quarantined, MALFORMED.items(), strict=True):
        assert reason in q.reason, (kind, q.reason)


def test_unreadable_entries_are_quarantined_not_taken_for_another_runners(tmp_path: Path) -> None:
    """A dangling link named like an entry read as "another runner took it": never set aside,
    `due` true forever (the fill job yielded for good). A two-link loop, a folder and a file
    without .json are no entries either; each is quarantined with its reason."""
    s = Spool(tmp_path)
    s.enqueue(req(label="main", at=50.0))
    (tmp_path / "new" / "0-dangling.json").symlink_to(tmp_path / "nowhere.json")
    (tmp_path / "new" / "1-loop.json").symlink_to(tmp_path / "new" / "2-loop.json")
    (tmp_path / "new" / "2-loop.json").symlink_to(tmp_path / "new" / "1-loop.json")
    (tmp_path / "new" / "3-folder.json").mkdir()
    (tmp_path / "new" / "4-no-suffix").write_text(json.dumps(asdict(req(label="dev"))))
    unreadable = {q.name: q.reason for q in s.unreadable()}
    assert set(unreadable) == {
        "0-dangling.json",
        "1-loop.json",
        "2-loop.json",
        "3-folder.json",
        "4-no-suffix",
    }
    got = s.claim(now=200.0)
    assert got is not None and got[0].label == "main"
    s.ack(got[1])
    reasons = {q.name: q.reason for q in s.quarantined()}
    assert "symbolic link" in reasons["0-dangling.json"] and "symbolic link" in reasons["1-loop.json"]
    assert "not a regular file" in reasons["3-folder.json"]
    assert "does not end in .json" in reasons["4-no-suffix"]
    assert s.pending() == [] and s.due(now=10**10) is False and s.unreadable() == []


class _Racing(Spool):
    """A draining runner that acks every entry right after this process listed it."""

    def pending(self) -> list[Path]:
        listed = super().pending()
        for p in listed:
            p.unlink()
        return listed


def test_an_entry_vanishing_between_listing_and_reading_is_skipped_everywhere(tmp_path: Path) -> None:
    s = _Racing(tmp_path)
    s.enqueue(req(attempts=0))
    assert s.oldest_mtime() is None  # status stat()ed it: FileNotFoundError
    s.enqueue(req())
    assert s.due(now=200.0) is False  # gone: no work, not "the drain quarantines it"
    s.enqueue(req())
    assert s.claim(now=200.0) is None and s.quarantined() == []
    s.enqueue(req())
    assert s.failed() == [] and s.unreadable() == [] and s.requests_for("acme:main") == []


def test_a_new_commit_is_tried_at_once_while_an_older_request_backs_off(tmp_path: Path) -> None:
    """Requests coalesced and a label was due only when its latest backoff had passed: after an
    hour of failures every new commit waited up to an hour more (and `--fresh` could not pass)."""
    s = Spool(tmp_path)
    s.enqueue(req(commit="a" * 40, at=100.0))
    now = 100.0
    for _ in range(12):  # the backoff reaches its hour
        got = s.claim(now=now)
        assert got is not None
        again = s.fail(got[0], got[1], error="disk full", now=now)
        assert again is not None
        now = again.not_before
    assert again.not_before - backoff(again.attempts) == now - MAX_BACKOFF_SECONDS
    s.enqueue(req(commit="b" * 40, at=now - 3000.0))  # a commit, long before the backoff ends
    got = s.claim(now=now - 3000.0)
    assert got is not None and got[0].commit == "b" * 40 and got[0].attempts == 0 and len(got[1]) == 2


def test_a_request_failing_for_good_ends_in_quarantine_after_bounded_attempts(tmp_path: Path) -> None:
    s = Spool(tmp_path)
    s.enqueue(req(catalog="gone"))
    now, tries = 100.0, 0
    while (got := s.claim(now=now)) is not None:
        tries += 1
        again = s.fail(got[0], got[1], error="unknown catalog 'gone'", now=now, permanent=True)
        now += MAX_BACKOFF_SECONDS
    assert tries == MAX_ATTEMPTS and again is None and s.pending() == []
    [q] = s.quarantined()
    assert q.reason == f"gave up after {MAX_ATTEMPTS} attempts: unknown catalog 'gone'"
    s.enqueue(req())  # a transient failure retries however often it fails
    for _ in range(MAX_ATTEMPTS + 2):
        got = s.claim(now=now)
        assert got is not None
        assert s.fail(got[0], got[1], error="disk full", now=now) is not None
        now += MAX_BACKOFF_SECONDS


def test_quarantine_is_pruned_by_age_and_count_keeping_the_newest(tmp_path: Path) -> None:
    """Issue 35, item 6: quarantine/ was never pruned. Entries (a file, a folder, a link, each with
    its .reason) older than the limit go unless among the newest kept; past the count any go;
    recent ones stay; a link's target is never touched."""
    import os

    from monodex.runner.spool import QUARANTINE_KEEP, QUARANTINE_MAX, QUARANTINE_MAX_AGE_SECONDS

    s = Spool(tmp_path)
    s.enqueue(req())  # creates the folders
    q = tmp_path / "quarantine"
    now = 10_000_000.0
    outside = tmp_path / "outside.txt"
    outside.write_text("not the spool's")

    def set_aside(name: str, age: float, kind: str = "file") -> None:
        entry = q / name
        if kind == "folder":
            entry.mkdir()
            (entry / "inner").write_text("x")
        elif kind == "link":
            entry.symlink_to(outside)
        else:
            entry.write_text("{}")
        (q / (name + ".reason")).write_text("bad\n")
        for p in (entry, q / (name + ".reason")):
            os.utime(p, (now - age, now - age), follow_symlinks=False)

    old = QUARANTINE_MAX_AGE_SECONDS + 60
    for i in range(QUARANTINE_KEEP + 5):  # all old: the newest KEEP of them stay
        set_aside(f"old-{i:03d}.json", old + i, kind=("folder", "link", "file")[i % 3])
    assert s.prune(now) == 5
    left = {x.name for x in s.quarantined()}
    assert left == {f"old-{i:03d}.json" for i in range(QUARANTINE_KEEP)}
    assert not (q / "old-024.json.reason").exists() and outside.read_text() == "not the spool's"
    for i in range(QUARANTINE_MAX + 10):  # recent ones: kept up to the count, the oldest go first
        set_aside(f"new-{i:03d}.json", float(i))
    assert s.prune(now) == QUARANTINE_KEEP + 10
    left = {x.name for x in s.quarantined()}
    assert left == {f"new-{i:03d}.json" for i in range(QUARANTINE_MAX)}
    assert len(list(q.iterdir())) == 2 * QUARANTINE_MAX  # no orphan .reason left
    assert s.prune(now) == 0
