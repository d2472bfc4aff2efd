"""A full disk under the index (issue 12, item 8): exit 1 and a message naming the filesystem and
what to free, never a silent SIGBUS (exit 135); nothing indexed is lost, and a later run with space
resumes.

The disk is a real small tmpfs, filled up for real. Qdrant Edge maps its files with MAP_SHARED, and
on tmpfs even *reading* a hole of such a mapping allocates a page, so this is the worst case: there
the read-only commands died too (on ext4 only writes do).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from monodex.indexer.store.base import Filter, Point
from monodex.indexer.store.edge import EdgeStore

from monodex.disk import diskspace

SIZE_MB = 512  # above the first crawl's footprint on tmpfs (~130 MB), the open reserve, and a compaction aside (a copy: ~360 MB)
CRAWL = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")


@pytest.fixture
def small_fs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """A tmpfs of SIZE_MB holding XDG_DATA_HOME; unmounted at teardown."""
    fs = tmp_path / "fs"
    fs.mkdir()
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE_MB}m,mode=0700", "tmpfs", str(fs)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        pytest.skip(
            f"cannot mount a small tmpfs to fill (needs root with CAP_SYS_ADMIN): {proc.stderr.strip()}"
        )
    monkeypatch.setenv("XDG_DATA_HOME", str(fs / "data"))
    yield fs
    subprocess.run(["umount", "-l", str(fs)], check=True)


def _fill(fs: Path, *, leave: int = 0) -> Path:
    """Write a file until the filesystem is full, then give `leave` bytes back."""
    filler = fs / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 20, 4096):  # big blocks, then the last pages
            try:
                while True:
                    os.write(fd, b"\xff" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    if leave:
        os.truncate(filler, max(0, filler.stat().st_size - leave))
    return filler


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """A separate process: a SIGBUS must not take pytest down with it."""
    return subprocess.run(
        [sys.executable, "-m", "monodex", *argv], capture_output=True, text=True, check=False, timeout=600
    )


def _labels() -> list[dict[str, object]]:
    proc = _cli("labels", "--json")
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, object]] = json.loads(proc.stdout)["labels"]
    return rows


def test_every_command_on_a_full_disk_says_what_to_free_and_the_index_survives(monorepo, small_fs) -> None:  # type: ignore[no-untyped-def]
    assert _cli(*CRAWL).returncode == 0
    before = _labels()
    monorepo.write("libraries/net/src/extra.ts", "export function extraRetry(): number { return 1; }\n")
    new_head = monorepo.commit("extra")
    filler = _fill(small_fs)

    for argv in (
        ("labels",),
        ("verify",),
        ("doctor",),
        CRAWL,
        ("search", "--catalog", "acme", "--label", "main", "--text", "retry"),
    ):
        proc = _cli(*argv)
        said = proc.stdout + proc.stderr
        assert proc.returncode == 1, (argv, proc.returncode, said)
        assert f"MB free on {small_fs}" in said and "unexpected" not in said, (argv, said)
    status = _cli("status")
    assert status.returncode == 0 and f"MB free on {small_fs}" in status.stdout, status.stdout + status.stderr

    filler.unlink()
    assert _labels() == before
    assert _cli(*CRAWL).returncode == 0
    (row,) = _labels()
    assert row["commit_oid"] == new_head and row["crawl_complete"] is True
    verify = _cli("verify", "--json")
    assert verify.returncode == 0 and all(r["ok"] for r in json.loads(verify.stdout)["labels"]), verify.stdout


def _point(i: int, text: str) -> Point:
    return Point(id=f"00000000-0000-0000-0000-{i:012d}", payload={"text": text}, dense=[0.5] * 8)


def test_a_write_is_refused_before_it_could_fill_the_disk(small_fs) -> None:  # type: ignore[no-untyped-def]
    store = EdgeStore(small_fs / "data", "c")
    store.ensure_collection(dim=8, embedder_id="e")
    store.upsert([_point(0, "kept")])
    _fill(small_fs, leave=diskspace.RESERVE_BYTES + (1 << 20))
    big = [_point(i, "x" * 200_000) for i in range(1, 21)]  # ~4 MB of text: more than is left
    with pytest.raises(diskspace.DiskFull) as refused:
        store.upsert(big)
    assert f"MB free on {small_fs}" in refused.value.problem and "XDG_DATA_HOME" in refused.value.hint
    assert store.count(Filter()) == 1
    store.close()
    (small_fs / "filler").unlink()
    store = EdgeStore(small_fs / "data", "c")
    store.upsert(big)
    assert store.count(Filter()) == 21
    store.close()


SIGBUS_SCRIPT = """
import mmap, os, sys
from pathlib import Path
from monodex.disk import diskspace
where = Path(sys.argv[1])
if sys.argv[2] == "guarded":
    diskspace.guard_sigbus(where)
if sys.argv[3] == "edge":
    import qdrant_edge
    qdrant_edge.EdgeShard.load(sys.argv[4])  # as EdgeStore would, without its free-space check
else:
    fd = os.open(where / "sparse", os.O_RDWR | os.O_CREAT, 0o600)
    os.ftruncate(fd, 1 << 20)
    mmap.mmap(fd, 1 << 20)[8192] = 1  # a hole: the page cannot be allocated
print("survived")
"""


@pytest.mark.parametrize("what", ["mmap", "edge"])
def test_a_sigbus_still_ends_with_a_message_and_exit_1(small_fs, monorepo, what: str) -> None:  # type: ignore[no-untyped-def]
    shard = small_fs / "data" / "monodex" / "qdrant" / "monodex"
    if what == "edge":
        assert _cli(*CRAWL).returncode == 0
    _fill(small_fs)

    def run(mode: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-c", SIGBUS_SCRIPT, str(small_fs), mode, what, str(shard)]
        return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)

    bare = run("bare")
    assert bare.returncode == -signal.SIGBUS, (bare.returncode, bare.stderr)  # the fault is real
    guarded = run("guarded")
    assert guarded.returncode == 1 and "survived" not in guarded.stdout
    assert "bus error (SIGBUS)" in guarded.stderr and f"0 MB free on {small_fs}" in guarded.stderr


def test_a_full_disk_under_the_config_is_an_error_too(small_fs, git_repo, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from monodex.main import main

    repo = git_repo({"a.ts": "export const a = 1;\n"})
    monkeypatch.setenv("XDG_CONFIG_HOME", str(small_fs / "config"))
    _fill(small_fs)
    assert main(["catalog", "add", "acme", str(repo.path)]) == 1
    err = capsys.readouterr().err
    assert f"could not write {small_fs}/config/monodex/config.json: No space left on device" in err
    assert f"0 MB free on {small_fs})" in err and f"df -h {small_fs})" in err
    assert "unexpected" not in err


def test_any_other_write_on_a_full_disk_says_so_without_a_crash_log(small_fs, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("XDG_STATE_HOME", str(small_fs / "state"))  # the runner's pid file goes here
    _fill(small_fs)
    proc = _cli("runner", "--drain-seconds", "1")
    assert proc.returncode == 1, proc.stderr
    assert "error: the disk is full: No space left on device" in proc.stderr and "df -h" in proc.stderr
    assert "unexpected" not in proc.stderr


def _compacted(shard: Path, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while json.loads((shard / "monodex-collection.json").read_text()).get("written"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def test_a_crawl_with_no_room_to_compact_still_moves_the_label_and_compacts_later(  # type: ignore[no-untyped-def]
    small_fs, monorepo, run_json, monkeypatch
) -> None:
    """Compaction when it helps (issue 25) writes the merged segments anew (of a copy since issue
    36): on a disk without that room the crawl it follows must still succeed, and the next crawl
    with room compacts."""
    from monodex.indexer.upkeep import compaction

    monkeypatch.setattr(compaction, "MIN_WRITES", 1)
    argv = (*CRAWL, "--json")
    code, first, err = run_json(*argv)
    assert code == 0 and first["compaction"]["pid"] > 0, err
    shard = small_fs / "data" / "monodex" / "qdrant" / "monodex"
    assert _compacted(shard)
    room = diskspace.need_to_open(shard) + (2 << 20)  # enough to open and write, not to compact
    assert diskspace.need_to_compact(shard) > room
    monorepo.write("libraries/net/src/extra.ts", "export function extraRetry(): number { return 1; }\n")
    new_head = monorepo.commit("extra")
    filler = _fill(small_fs, leave=room)

    code, moved, err = run_json(*argv)
    assert code == 0, err
    assert moved["commit"] == new_head and moved["files_embedded"] >= 1
    assert f"MB free on {small_fs}" in moved["compacted"]["skipped"]
    code, text, _ = run_json(*CRAWL)
    assert code == 0 and "index not compacted: " in text

    filler.unlink()
    code, later, err = run_json(*argv)  # nothing new to index; what was written still counts
    assert code == 0 and later["files_embedded"] == 0, err
    assert later["compaction"]["written"] > 0 and _compacted(shard)
    code, found, _ = run_json(
        "search", "--catalog", "acme", "--label", "main", "--text", "extraRetry", "--json"
    )
    assert code == 0 and found["results"][0]["relative_path"] == "libraries/net/src/extra.ts"
