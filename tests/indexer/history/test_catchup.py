"""Co-change counts from a real git history (indexer/history/catchup.py): what counts, counted once
across branches and refreshes, started over when the crawl policy changes."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from monodex.indexer.history import catchup
from monodex.indexer.history.changed import MAX_FILES
from monodex.indexer.history.cochanges import History


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
