"""The overlay's stat cache: a search does not read files that did not change (counted, not timed).
`git status` itself is tests/kernel/test_git.py's."""

from __future__ import annotations

import os
import time

from monodex.indexer.overlay import statcache
from monodex.indexer.points.identity import git_blob_sha1


def test_the_stat_cache_reads_a_file_again_only_when_its_stat_changed(tmp_path) -> None:  # type: ignore[no-untyped-def]
    f = tmp_path / "a.ts"
    f.write_text("export const a = 1;\n")
    past = time.time() - 60
    os.utime(f, (past, past))
    cache: dict[str, list[object]] = {}
    first = statcache.scan(tmp_path, ["a.ts", "gone.ts"], cache, max_bytes=lambda _: 1000)
    assert first.hashed == 1 and first.blobs == {"a.ts": git_blob_sha1(f.read_bytes())} and first.changed
    again = statcache.scan(tmp_path, ["a.ts", "gone.ts"], cache, max_bytes=lambda _: 1000)
    assert again.hashed == 0 and again.blobs == first.blobs and not again.changed
    f.write_text("export const a = 22;\n")  # new size and mtime: read again
    third = statcache.scan(tmp_path, ["a.ts"], cache, max_bytes=lambda _: 1000)
    assert third.hashed == 1 and third.blobs["a.ts"] == git_blob_sha1(b"export const a = 22;\n")
    # changed within the racy window of its hashing: read again until it is older than that
    fourth = statcache.scan(tmp_path, ["a.ts"], cache, max_bytes=lambda _: 1000)
    assert fourth.hashed == 1
    assert statcache.scan(tmp_path, [], cache, max_bytes=lambda _: 1000).changed and cache == {}
