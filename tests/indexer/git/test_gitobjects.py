from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from monodex.indexer.git.gitobjects import open_repo

from monodex.errors import MonodexError, UsageError


@pytest.fixture
def repo(git_repo):  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "export const a = 1;\n", "docs/b.md": "# B\n"})
    r.git("tag", "v1")
    r.git("tag", "-a", "v1-annotated", "-m", "release")
    r.write("c.ts", "export const c = 3;\n")
    r.commit("second")
    r.git("branch", "feature")
    return r


def test_resolves_every_kind_of_revision(repo) -> None:  # type: ignore[no-untyped-def]
    g = open_repo(repo.path)
    head, first = repo.head(), repo.git("rev-parse", "HEAD~1")
    repo.git("update-ref", "refs/remotes/origin/main", first)
    assert g.resolve("HEAD") == head and g.resolve("main") == head and g.resolve("feature") == head
    assert g.resolve("v1") == first and g.resolve("v1-annotated") == first  # annotated: peeled
    assert g.resolve("origin/main") == first
    assert g.resolve(head) == head and g.resolve(head[:7]) == head and g.resolve(head[:4]) == head
    assert g.resolve("HEAD~1") == first and g.resolve("main^") == first and g.resolve("HEAD^0") == head
    tag_object = repo.git("rev-parse", "v1-annotated")  # a full SHA that is not a commit: peeled
    assert tag_object != first and g.resolve(tag_object) == first and g.resolve(head.upper()) == head


@pytest.mark.parametrize("rev", ["no-such-branch", "deadbeef", "HEAD~9", "HEAD^2", "v1:a.ts", ""])
def test_unknown_revisions_are_usage_errors(repo, rev: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as info:
        open_repo(repo.path).resolve(rev)
    assert repr(rev) in info.value.problem and "git log --oneline" in info.value.hint


def test_ambiguous_short_sha(git_repo) -> None:  # type: ignore[no-untyped-def]
    r = git_repo()
    # 600 commits in one fast-import: some two ids then share 4 hex digits (birthday bound).
    stream = "".join(
        f"commit refs/heads/c{i}\ncommitter T <t@example.com> {1_700_000_000 + i} +0000\n"
        f"data {len(str(i))}\n{i}\n\n"
        for i in range(600)
    )
    subprocess.run(["git", "fast-import", "--quiet"], cwd=r.path, input=stream.encode(), check=True)
    by_prefix: dict[str, list[str]] = defaultdict(list)
    for sha in r.git("for-each-ref", "--format=%(objectname)", "refs/heads/").split():
        by_prefix[sha[:4]].append(sha)
    prefix = next(p for p, shas in by_prefix.items() if len(shas) > 1)
    with pytest.raises(UsageError) as info:
        open_repo(r.path).resolve(prefix)
    assert "ambiguous" in info.value.problem and "more digits" in info.value.hint
    assert open_repo(r.path).resolve(by_prefix[prefix][0][:12]) == by_prefix[prefix][0]


def test_bad_repository_paths(tmp_path: Path, repo) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="does not exist"):
        open_repo(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError, match="not a git repository"):
        open_repo(tmp_path / "plain")
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(tmp_path / "bare.git")], check=True)
    with pytest.raises(UsageError) as info:
        open_repo(tmp_path / "bare.git")
    assert "bare" in info.value.problem and "pass the repository root" in info.value.hint


def test_tree_entries_kinds_ids_and_sizes(repo) -> None:  # type: ignore[no-untyped-def]
    (repo.path / "link.ts").symlink_to("a.ts")
    name = os.fsdecode(b"caf\xe9.md")  # a latin-1 file name: not UTF-8
    repo.write(name, "# cafe\n")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{repo.head()},vendor/sub")
    repo.commit("sub+link+latin1", add_all=False)
    g = open_repo(repo.path)
    entries = {e.path: e for e in g.tree_entries(g.resolve("HEAD"), sizes=True)}
    assert entries["vendor/sub"].kind == "submodule" and entries["vendor/sub"].size is None
    assert entries["link.ts"].kind == "symlink" and entries["link.ts"].size == len("a.ts")
    assert entries["docs/b.md"].kind == "file" and entries["docs/b.md"].size == 4
    assert entries["a.ts"].blob_id == repo.git("rev-parse", "HEAD:a.ts")
    assert "caf\udce9.md" in entries  # kept with a surrogate; the planner skips it by reason
    assert g.tree_entries(g.resolve("HEAD"))[0].size is None


def test_files_in_lists_a_folders_own_files_like_entry_at(repo) -> None:  # type: ignore[no-untyped-def]
    repo.write("docs/deep/c.md", "# C\n")
    repo.commit("deep")
    g = open_repo(repo.path)
    head = g.resolve("HEAD")
    root, docs = g.files_in(head, ""), g.files_in(head, "docs")
    assert sorted(root) == ["a.ts", "c.ts"] and sorted(docs) == ["b.md"]  # folders are not files
    assert docs["b.md"] == g.entry_at(head, "docs/b.md") and root["a.ts"] == g.entry_at(head, "a.ts")
    assert g.files_in(head, "docs/deep")["c.md"].path == "docs/deep/c.md"
    assert g.files_in(head, "nowhere") == {} and g.files_in(head, "a.ts") == {}


def test_read_blobs_and_sizes_loose_and_packed_with_deltas(git_repo) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"big.ts": "".join(f"export const v{i} = {i};\n" for i in range(400))})
    for n in range(1, 6):
        r.write("big.ts", "".join(f"export const v{i} = {i * n};\n" for i in range(400 + n)))
        r.write("empty.txt", "")
        r.commit(f"v{n}")
    blobs = [
        line.split()[0]
        for line in r.git("rev-list", "--objects", "--all").splitlines()
        if r.git("cat-file", "-t", line.split()[0]) == "blob"
    ]
    expected = {b: int(r.git("cat-file", "-s", b)) for b in blobs}
    assert open_repo(r.path).blob_sizes(blobs) == expected  # loose objects
    r.git("repack", "-a", "-d", "-f", "--depth=10", "--window=10", "-q")
    (pack,) = (r.path / ".git/objects/pack").glob("*.idx")
    assert "chain length = 1" in r.git("verify-pack", "-v", str(pack))  # some blobs are deltas
    g = open_repo(r.path)
    assert g.blob_sizes(blobs) == expected and g.blob_size(blobs[0]) == expected[blobs[0]]
    contents = dict(g.read_blobs(blobs + blobs))  # duplicates read once
    assert {b: len(c) for b, c in contents.items()} == expected
    assert (
        contents[blobs[0]]
        == subprocess.run(
            ["git", "cat-file", "blob", blobs[0]], cwd=r.path, capture_output=True, check=True
        ).stdout
    )
    g.close()


def test_missing_object_is_a_monodex_error(git_repo) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "export const a = 1;\n"})
    blob = r.git("rev-parse", "HEAD:a.ts")
    (r.path / ".git/objects" / blob[:2] / blob[2:]).unlink()
    with pytest.raises(MonodexError, match="missing"):
        list(open_repo(r.path).read_blobs([blob]))


def test_ancestry_and_diff(repo) -> None:  # type: ignore[no-untyped-def]
    g = open_repo(repo.path)
    v1, head = g.resolve("v1"), g.resolve("HEAD")
    assert g.is_ancestor(v1, head) and not g.is_ancestor(head, v1) and g.is_ancestor(head, head)
    repo.git("mv", "docs/b.md", "docs/renamed.md")
    repo.write("a.ts", "export const a = 2;\n")
    repo.git("rm", "-q", "c.ts")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{head},vendor/sub")
    new = repo.commit("diff", add_all=False)
    changes = {(c.kind, c.old_path, c.new_path) for c in g.diff_trees(head, new)}
    assert changes == {
        ("modify", "a.ts", "a.ts"),
        ("delete", "c.ts", None),
        ("rename", "docs/b.md", "docs/renamed.md"),
        ("add", None, "vendor/sub"),
    }
    modify = next(c for c in g.diff_trees(head, new) if c.kind == "modify")
    assert modify.new_blob == repo.git("rev-parse", "HEAD:a.ts") and modify.old_mode == 0o100644
    every = g.changed_paths(head, new, counted=lambda p: True, stop_after=100)
    assert every == {"a.ts", "c.ts", "docs/b.md", "docs/renamed.md", "vendor/sub"}
    ts = g.changed_paths(head, new, counted=lambda p: p.endswith(".ts"), stop_after=100)
    assert ts == {"a.ts", "c.ts"}
    assert len(g.changed_paths(head, new, counted=lambda p: True, stop_after=1)) == 2  # stopped early


def test_empty_repository_and_bad_commit_ids(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    subprocess.run(["git", "init", "-q", str(tmp_path / "empty")], check=True)
    with open_repo(tmp_path / "empty") as g, pytest.raises(UsageError, match="no commits yet"):
        g.resolve("HEAD")
    r = git_repo({"a.ts": "export const a = 1;\n"})
    with open_repo(r.path) as g:
        for call in (lambda: g.is_ancestor("HEAD", r.head()), lambda: g.tree_entries("main")):
            with pytest.raises(UsageError, match="is not a commit id"):
                call()
        assert not g.is_ancestor("0" * 40, r.head())  # unknown ids are not ancestors


def test_relative_path_gives_an_absolute_workdir(git_repo, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "export const a = 1;\n"})
    monkeypatch.chdir(r.path)
    with open_repo(".") as g:
        assert g.workdir == r.path.absolute() and g.workdir.is_absolute()


def test_an_unclosed_repo_exits_quietly(git_repo) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "export const a = 1;\n"})
    r.git("repack", "-a", "-d", "-q")  # dulwich's pack __del__ is what complained at exit
    code = (
        "import sys; from monodex.indexer.git.gitobjects import open_repo\n"
        f"g = open_repo({str(r.path)!r}); print(len(g.tree_entries(g.resolve('HEAD'), sizes=True)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "1\n" and done.stderr == ""


def _resident_kb(suffix: str) -> int:
    """Resident KB of this process's mappings of files whose name ends with `suffix`."""
    total, current = 0, False
    with open("/proc/self/smaps") as f:
        for line in f:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5:
                current = len(head) > 5 and head[-1].endswith(suffix)
            elif current and line.startswith("Rss:"):
                total += int(head[1])
    return total


def test_a_crawl_reading_a_pack_does_not_keep_its_pages_resident(git_repo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """dulwich maps a pack whole: a 100,000-file crawl kept 201 MB of its pack resident, counted
    against crawl.max_memory_mb. Reading releases what it read every RELEASE_EVERY bytes."""
    from monodex.indexer.git import gitobjects

    blobs = {f"f{i}.bin": os.urandom(256 * 1024) for i in range(32)}  # incompressible: 8 MB of pack
    r = git_repo(blobs)
    r.git("gc", "-q")
    g = open_repo(r.path)
    ids = [e.blob_id for e in g.tree_entries(g.resolve("HEAD"))]
    monkeypatch.setattr(gitobjects, "RELEASE_EVERY", 1 << 20)
    assert sum(len(c) for _, c in g.read_blobs(ids)) == 32 * 256 * 1024
    assert _resident_kb(".pack") < 2048  # at most a release's worth, where it was the whole 8 MB
    g.close()
