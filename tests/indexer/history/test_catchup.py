"""Co-change counts from a real git history (indexer/history/catchup.py): what counts, counted once
across branches and refreshes, started over when the crawl policy changes."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from monodex.indexer.history import catchup, cochanges
from monodex.indexer.history.changed import MAX_FILES
from monodex.indexer.history.cochanges import History
from monodex.indexer.rank import pastwords


def _ts(path: str) -> bool:
    return path.endswith(".ts")


def _files(db: Path) -> dict[str, int]:
    with sqlite3.connect(db) as con:
        return dict(con.execute("SELECT path, n FROM files").fetchall())


def _history(git_repo):  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "1", "src/b.ts": "1", "README.md": "1"})  # a, b (README not kept)
    repo.write("src/a.ts", "2")
    repo.write("src/b.ts", "2")
    repo.write("src/c.ts", "2")
    repo.commit("a, b and c")
    repo.write("src/a.ts", "3")
    repo.commit("a alone")
    for i in range(MAX_FILES + 1):  # a bulk change: not counted
        repo.write(f"src/bulk{i}.ts", "x")
    repo.write("src/a.ts", "4")
    repo.write("src/c.ts", "4")
    repo.commit("bulk")
    return repo


def test_counts_say_how_often_files_changed_together(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    db = tmp_path / "h.sqlite"
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 4
    assert _files(db) == {"src/a.ts": 3, "src/b.ts": 2, "src/c.ts": 1}
    past = History(db)
    single, pair = past.counts(["src/b.ts", "src/c.ts", "src/bulk0.ts"], ["src/a.ts"])
    assert single == {"src/a.ts": 3}
    assert pair == {("src/a.ts", "src/b.ts"): 2, ("src/a.ts", "src/c.ts"): 1}
    # either order of anchor and file finds the pair, stored once with a < b
    assert past.counts(["src/a.ts"], ["src/c.ts"])[1] == {("src/a.ts", "src/c.ts"): 1}
    past.close()


def test_each_commit_is_counted_once_across_refreshes_and_branches(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    db = tmp_path / "h.sqlite"
    main = repo.head()
    catchup.update(db, repo.path, main, _ts, "p1")
    assert catchup.update(db, repo.path, main, _ts, "p1") == 0  # nothing new
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/b.ts", "feature")
    repo.write("src/c.ts", "feature")
    repo.commit("b and c on a branch")
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 1  # the shared past is not recounted
    repo.git("checkout", "-q", "main")
    repo.write("src/a.ts", "5")
    repo.commit("a on main")
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 1
    assert _files(db) == {"src/a.ts": 4, "src/b.ts": 3, "src/c.ts": 2}


def test_a_walked_tip_that_is_gone_does_not_stop_counting(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    with sqlite3.connect(db) as con:  # e.g. a branch deleted and its commits pruned by git gc
        con.execute("INSERT INTO tips VALUES (?, 99)", ("f" * 40,))
    repo.write("src/b.ts", "later")
    repo.commit("b later")
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 1
    assert _files(db)["src/b.ts"] == 3


def test_another_crawl_policy_counts_again_from_nothing(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    assert catchup.update(db, repo.path, repo.head(), lambda p: p.endswith(".md"), "p2") == 4
    assert _files(db) == {"README.md": 1}


def test_no_history_yet_reads_as_none(tmp_path: Path) -> None:
    assert History.open(tmp_path, "acme") is None


def test_a_renamed_file_keeps_its_past_under_its_new_name(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")  # a: 3 commits, b: 2 (both together)
    (repo.path / "lib").mkdir()
    repo.git("mv", "src/b.ts", "lib/b2.ts")
    repo.commit("move b")
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    past = History(db)
    assert past.counts(["lib/b2.ts"], ["src/a.ts"]) == ({"src/a.ts": 3}, {("lib/b2.ts", "src/a.ts"): 2})
    past.close()
    # counted from nothing, the walk gives the same: the past of b is b2's
    fresh = tmp_path / "fresh.sqlite"
    catchup.update(fresh, repo.path, repo.head(), _ts, "p1")
    assert _files(fresh)["lib/b2.ts"] == 3 and "src/b.ts" not in _files(fresh)


def test_a_folder_moved_away_and_back_is_counted_once(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """google/leveldb moved its files into `leveldb/` and back out: each file's name then maps to
    itself, and copying its counts "to its new name" doubled them (its pairs twice over: 19 commits
    of db_impl.cc with db_impl.h read as 76, more than either file's own 40)."""
    repo = _history(git_repo)  # a: 3 commits, b: 2, c: 1; a and b together 2
    (repo.path / "old").mkdir()
    repo.git("mv", "src/a.ts", "old/a.ts")
    repo.git("mv", "src/b.ts", "old/b.ts")
    repo.commit("into a folder")
    repo.git("mv", "old/a.ts", "src/a.ts")
    repo.git("mv", "old/b.ts", "src/b.ts")
    repo.commit("and back")
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    past = History(db)
    single, pair = past.counts(["src/b.ts", "src/c.ts"], ["src/a.ts"])
    past.close()
    # each move counts once for both files (under the name it has today)
    assert single == {"src/a.ts": 5}
    assert pair == {("src/a.ts", "src/b.ts"): 4, ("src/a.ts", "src/c.ts"): 1}
    assert _files(db)["src/b.ts"] == 4 and "old/a.ts" not in _files(db)


def test_a_new_file_at_a_moved_files_old_name_keeps_its_own_counts(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A file moved away and another one made under its old name later: the first count of the
    history gave the new file's commits to the moved one as well."""
    repo = _history(git_repo)  # a: 3 commits, b: 2
    (repo.path / "lib").mkdir()
    repo.git("mv", "src/b.ts", "lib/b.ts")
    repo.commit("move b")
    for i in range(3):
        repo.write("src/b.ts", f"another b {i}")
        repo.write("src/a.ts", f"with a {i}")
        repo.commit(f"a new b {i}")
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    files = _files(db)
    assert files["lib/b.ts"] == 3 and files["src/b.ts"] == 3
    past = History(db)
    assert past.counts(["lib/b.ts", "src/b.ts"], ["src/a.ts"])[1] == {
        ("lib/b.ts", "src/a.ts"): 2,
        ("src/a.ts", "src/b.ts"): 3,
    }
    past.close()


def _missing(path: Path) -> set[str]:
    out = subprocess.run(
        ["git", "-C", str(path), "rev-list", "--objects", "--missing=print", "--all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {line for line in out.splitlines() if line.startswith("?")}


def test_a_partial_clone_is_never_made_to_fetch(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A blobless clone: following renames by content would fetch every added and deleted file
    from the remote. Only exact renames are followed there, and nothing is fetched."""
    repo = _history(git_repo)
    body = "".join(f"export const line{i}: number = {i};\n" for i in range(40))
    repo.write("src/long.ts", body)
    repo.commit("long")
    (repo.path / "lib").mkdir()
    repo.git("mv", "src/a.ts", "lib/exact.ts")  # same content: found by object id
    repo.git("mv", "src/long.ts", "lib/edited.ts")
    repo.write("lib/edited.ts", body + "// edited while moved\n")  # similar content only
    repo.commit("move two files")
    repo.git("config", "uploadpack.allowFilter", "true")
    repo.git("config", "uploadpack.allowAnySHA1InWant", "true")  # so a lazy fetch would succeed
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--no-checkout", "--filter=blob:none", f"file://{repo.path}", str(clone)],
        check=True,
    )
    missing = _missing(clone)
    assert missing  # the clone really lacks blobs
    db = tmp_path / "h.sqlite"
    catchup.update(db, clone, "HEAD", _ts, "p1")
    assert _missing(clone) == missing  # nothing fetched
    files = _files(db)
    assert files["lib/exact.ts"] == 4 and "src/a.ts" not in files  # a's past, under its new name
    assert files["lib/edited.ts"] == 1 and files["src/long.ts"] == 2  # not followed: content unread


def test_a_shallow_clone_deepened_later_has_its_whole_history_counted(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`git clone --depth 1`, crawled, then `git fetch --unshallow`: the older commits are
    ancestors of a tip already walked, so a walk stopping at the tips would never count them.
    A changed shallow boundary walks everything again; what was counted is not counted twice."""
    repo = _history(git_repo)
    repo.write("src/b.ts", "last")
    repo.commit("b last")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone)], check=True)
    db = tmp_path / "h.sqlite"
    assert catchup.update(db, clone, "HEAD", _ts, "p1") == 1  # the one commit there is
    assert _files(db) == {}  # with no parent, every file is new: a bulk change, not counted
    subprocess.run(["git", "-C", str(clone), "fetch", "-q", "--unshallow"], check=True)
    assert catchup.update(db, clone, "HEAD", _ts, "p1") == 4  # the four commits the fetch brought
    assert _files(db) == {"src/a.ts": 3, "src/b.ts": 2, "src/c.ts": 1}
    assert catchup.update(db, clone, "HEAD", _ts, "p1") == 0  # counted: not walked again


def _subjects(git_repo):  # type: ignore[no-untyped-def]
    """gate.ts changed by commits about throttling, retry.ts by one about retries."""
    repo = git_repo({"src/gate.ts": "1", "src/retry.ts": "1", "src/log.ts": "1"})
    changes = (
        ("Throttle outgoing requests per host", ("src/gate.ts", "src/log.ts")),
        ("fix: throttle bursts", ("src/gate.ts",)),
        ("Retry requests on 503", ("src/retry.ts",)),
    )
    for n, (subject, touched) in enumerate(changes, start=2):
        for path in touched:
            repo.write(path, str(n))
        repo.commit(subject)
    return repo


def test_subject_words_point_at_the_files_their_commits_touched(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = _subjects(git_repo)
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    past = History(db)
    found = pastwords.ranked(past, "throttle requests")
    assert [p.path for p in found][:2] == ["src/gate.ts", "src/log.ts"]
    assert found[0].commits == 2  # both throttle commits changed it
    assert [p.path for p in pastwords.ranked(past, "where do we retry requests?")][:1] == ["src/retry.ts"]
    assert pastwords.ranked(past, "websocket") == []  # a word no subject has
    past.close()
    (repo.path / "lib").mkdir()
    repo.git("mv", "src/gate.ts", "lib/limiter.ts")
    repo.commit("move the gate")
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    past = History(db)
    moved = {p.path: p.commits for p in pastwords.ranked(past, "throttle")}
    assert moved["lib/limiter.ts"] == 2  # its past came with it (the old name keeps its own: another branch)
    past.close()


def test_counts_from_before_the_words_start_over(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """An index whose history an older monodex counted (no words): it reads as not counted, so
    the runner queues a refresh, and that refresh counts the whole history again."""
    repo = _subjects(git_repo)
    db = tmp_path / "history" / "acme.sqlite"
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 4
    with sqlite3.connect(db) as con:  # as the older schema left it
        con.execute("DELETE FROM meta WHERE key = 'schema'")
        con.execute("DELETE FROM words")
    assert cochanges.summary(tmp_path, "acme") is None
    past = History(db)
    assert pastwords.ranked(past, "throttle") == []  # no words: no list, no error
    past.close()
    assert catchup.update(db, repo.path, repo.head(), _ts, "p1") == 4  # counted again, words too
    assert cochanges.summary(tmp_path, "acme") is not None
    past = History(db)
    assert [p.path for p in pastwords.ranked(past, "throttle")][0] == "src/gate.ts"
    past.close()


def test_the_counts_a_search_reads_and_an_evaluation_grows_rank_alike(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Past words are scored by SQLite for a search (History) and in Python for an evaluation
    as of each change (Counts): the same history gives the same list."""
    from monodex.indexer.evaluate import past as pasts

    repo = _subjects(git_repo)
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _ts, "p1")
    growing, _ = pasts.as_of(repo.path, repo.head(), _ts)
    counts = growing.upto(len(growing.commits))
    stored = History(db)
    for text in ("throttle requests", "retry on 503", "host", "nothing of this"):
        a, b = pastwords.ranked(stored, text), pastwords.ranked(counts, text)
        assert [p.path for p in a] == [p.path for p in b], text
        assert [round(p.score, 9) for p in a] == [round(p.score, 9) for p in b], text
        assert [p.commits for p in a] == [p.commits for p in b], text
    stored.close()


def _md_or_ts(path: str) -> bool:
    return path.endswith((".ts", ".md"))


def test_the_latest_changes_keep_their_files_without_the_releases(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """rank/edited.py's window: each change's files, oldest first, a release that rewrote the
    changelog left out, a refresh's changes after those kept."""
    repo = git_repo({"src/a.ts": "0", "CHANGES.md": "0"})
    repo.write("src/a.ts", "1")
    repo.write("CHANGES.md", "1")
    repo.commit("Parse empty tags")
    repo.write("src/b.ts", "1")
    repo.commit("Add the b reader")
    repo.write("CHANGES.md", "release")
    repo.commit("Release 1.2.0")
    db = tmp_path / "h.sqlite"
    catchup.update(db, repo.path, repo.head(), _md_or_ts, "p1")
    past = History(db)
    assert past.latest_changes() == [("CHANGES.md", "src/a.ts"), ("CHANGES.md", "src/a.ts"), ("src/b.ts",)]
    past.close()
    repo.write("src/b.ts", "2")
    repo.write("CHANGES.md", "2")
    repo.commit("Read b lazily")
    catchup.update(db, repo.path, repo.head(), _md_or_ts, "p1")
    past = History(db)
    assert past.latest_changes()[-2:] == [("src/b.ts",), ("CHANGES.md", "src/b.ts")]
    past.close()


def test_the_latest_changes_are_a_window(tmp_path: Path) -> None:
    table = cochanges.CountTable(tmp_path / "h.sqlite", "p1")
    first = [(f"src/{i}.ts",) for i in range(cochanges.WINDOW + 5)]  # newest first, as a walk reads
    table.add(["o1"], [cochanges.Counts()], {}, "o1", first)
    table.add(["o2"], [cochanges.Counts()], {"src/0.ts": "src/zero.ts"}, "o2", [("src/new.ts",)])
    table.close()
    past = History(tmp_path / "h.sqlite")
    latest = past.latest_changes()
    assert len(latest) == cochanges.WINDOW
    # the oldest dropped, a file renamed since under its new name, the refresh's change newest
    assert latest[0] == (f"src/{cochanges.WINDOW - 2}.ts",)
    assert latest[-2:] == [("src/zero.ts",), ("src/new.ts",)]
    past.close()
