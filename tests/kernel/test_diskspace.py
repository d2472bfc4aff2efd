"""The free-space arithmetic behind the full-disk errors."""

from __future__ import annotations

import shutil
from pathlib import Path

from monodex.disk import diskspace

MOUNTINFO = """\
22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/vda rw
40 22 0:35 / /tmp/a\\040b rw,nosuid shared:20 - tmpfs tmpfs rw,size=20480k
41 22 0:36 / /data rw shared:21 - xfs /dev/vdb rw
42 41 0:37 / /data rw shared:22 - tmpfs tmpfs rw,size=1024k
"""


def test_the_filesystem_type_comes_from_the_visible_mount() -> None:
    assert diskspace.fs_type(Path("/"), MOUNTINFO) == "ext4"
    assert diskspace.fs_type(Path("/tmp/a b"), MOUNTINFO) == "tmpfs"  # escaped space
    assert diskspace.fs_type(Path("/data"), MOUNTINFO) == "tmpfs"  # mounted over the xfs
    assert diskspace.fs_type(Path("/nowhere"), MOUNTINFO) == ""


def test_holes_count_what_a_sparse_file_has_not_allocated(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    sparse = tmp_path / "d" / "page_0.dat"
    with open(sparse, "wb") as fh:
        fh.truncate(8 << 20)
    (tmp_path / "d" / "dense.dat").write_bytes(b"x" * 8192)
    assert 8 << 20 >= diskspace.holes(tmp_path) >= (8 << 20) - 4096


def test_a_folder_removed_while_it_is_walked_is_skipped(tmp_path: Path) -> None:
    """A compaction in another process drops segment folders while a command opening the index
    sums their holes: the folders gone by the time the walk reaches them are skipped (the walk
    raised FileNotFoundError, and the command failed with it: a killed-crawl test met it)."""
    for folder in ("s1", "s2/x/y", "s3/z"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "f").write_bytes(b"1" * 10)
    walk = diskspace._files(tmp_path)
    assert next(walk).st_size == 10
    shutil.rmtree(tmp_path / "s2")
    shutil.rmtree(tmp_path / "s3")
    # the walk goes on without raising: s1's file if it was not the first, nothing of the others
    assert [st.st_size for st in walk] in ([], [10])
    assert diskspace.allocated(tmp_path) > 0


def test_a_missing_folder_is_checked_on_its_nearest_ancestor(tmp_path: Path) -> None:
    assert diskspace.existing(tmp_path / "not" / "yet") == tmp_path
    # the same filesystem, whose free space other processes (a second test worker) change meanwhile
    assert abs(diskspace.free_bytes(tmp_path / "not" / "yet") - diskspace.free_bytes(tmp_path)) < 1 << 30
    assert diskspace.mount_point(tmp_path / "not") == diskspace.mount_point(tmp_path)


def test_the_shortage_names_the_filesystem_the_folder_and_the_fix() -> None:
    err = diskspace.shortage(
        free=10 << 20,
        need=(64 << 20) + 1,
        mount=Path("/mnt"),
        where=Path("/mnt/d/qdrant"),
        doing="storing 5 chunks",
    )
    assert err.problem == (
        "only 10 MB free on /mnt (the filesystem holding /mnt/d/qdrant); storing 5 chunks needs ~65 MB"
    )
    assert "df -h /mnt" in err.hint and "XDG_DATA_HOME" in err.hint and "qdrant.path" in err.hint
    assert err.exit_code == 1
