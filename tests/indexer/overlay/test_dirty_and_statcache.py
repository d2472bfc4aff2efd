"""The overlay's two cheap steps on their own: `git status` parsed, and the stat cache that keeps
a search from reading files that did not change (counted, not timed)."""

from __future__ import annotations

import os
import time

from monodex.indexer.overlay import dirty, statcache
from monodex.indexer.points.identity import git_blob_sha1


def test_porcelain_v2_is_parsed_into_branch_head_and_every_dirty_path() -> None:
    out = b"\0".join(
        [
            b"# branch.oid 1111111111111111111111111111111111111111",
            b"# branch.head feature/x",
            b"1 .M N... 100644 100644 100644 aaaa bbbb src/a file.ts",
            b"1 D. N... 100644 000000 000000 aaaa 0000 src/gone.ts",
            b"2 R. N... 100644 100644 100644 aaaa aaaa R100 src/new.ts",
            b"src/old.ts",
            b"u UU N... 100644 100644 100644 100644 aaaa bbbb cccc src/conflict.ts",
            b"? notes/todo.md",
            b"? nested-repo/",
            b"",
        ]
    )
    status = dirty.parse(out)
    assert status.branch == "feature/x" and status.head == "1" * 40
    assert status.paths == {
        "src/a file.ts",
        "src/gone.ts",
        "src/new.ts",
        "src/old.ts",
        "src/conflict.ts",
        "notes/todo.md",
    }
    detached = dirty.parse(b"# branch.oid (initial)\0# branch.head (detached)\0")
    assert detached.branch is None and detached.head == "" and not detached.paths


def test_git_status_of_a_real_worktree(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "export const a = 1;\n", "b.ts": "export const b = 1;\n"})
    repo.write(".gitignore", "ignored/\n")
    repo.commit("ignore")
    repo.write("a.ts", "export const a = 2;\n")
    (repo.path / "b.ts").unlink()
    repo.write("new/c.ts", "export const c = 1;\n")
    repo.write("ignored/d.ts", "export const d = 1;\n")
    wt = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "-b", "side", str(wt))
    status = dirty.status(repo.path)
    assert status.branch == "main" and status.head == repo.head()
    assert status.paths == {"a.ts", "b.ts", "new/c.ts"}
    assert dirty.status(wt).paths == set() and dirty.status(wt).branch == "side"
    assert dirty.common_dir(wt) == dirty.common_dir(repo.path) == (repo.path / ".git").resolve()
    assert dirty.head_branch(wt) == "side" and dirty.top(wt / "x" / "y") == wt


def test_the_stat_cache_reads_a_file_again_only_when_its_stat_changed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "a.ts"
    f.write_text("export const a = 1;\n")
    past = time.time() - 60
    os.utime(f, (past, past))
    cache: dict[str, list[object]] = {}
    first = statcache.scan(tmp_path, ["a.ts", "gone.ts"], cache, max_bytes=1000)
    assert first.hashed == 1 and first.blobs == {"a.ts": git_blob_sha1(f.read_bytes())} and first.changed
    again = statcache.scan(tmp_path, ["a.ts", "gone.ts"], cache, max_bytes=1000)
    assert again.hashed == 0 and again.blobs == first.blobs and not again.changed
    f.write_text("export const a = 22;\n")  # new size and mtime: read again
    third = statcache.scan(tmp_path, ["a.ts"], cache, max_bytes=1000)
    assert third.hashed == 1 and third.blobs["a.ts"] == git_blob_sha1(b"export const a = 22;\n")
    # changed within the racy window of its hashing: read again until it is older than that
    fourth = statcache.scan(tmp_path, ["a.ts"], cache, max_bytes=1000)
    assert fourth.hashed == 1
    assert statcache.scan(tmp_path, [], cache, max_bytes=1000).changed and cache == {}
