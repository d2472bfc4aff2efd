from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from monodex.indexer.gitobjects import open_repo

from monodex.errors import UsageError


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
    head = repo.head()
    first = repo.git("rev-parse", "HEAD~1")
    assert g.resolve("HEAD") == head and g.resolve("main") == head and g.resolve("feature") == head
    assert g.resolve("v1") == first and g.resolve("v1-annotated") == first
    assert g.resolve(head) == head and g.resolve(head[:7]) == head
    assert g.resolve("HEAD~1") == first and g.resolve("main^") == first


@pytest.mark.parametrize("rev", ["no-such-branch", "deadbeef", "HEAD~9"])
def test_unknown_revisions_are_usage_errors(repo, rev: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError) as info:
        open_repo(repo.path).resolve(rev)
    assert rev in info.value.problem


def test_bad_repository_paths(tmp_path: Path, repo) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(UsageError, match="does not exist"):
        open_repo(tmp_path / "missing")
    (tmp_path / "plain").mkdir()
    with pytest.raises(UsageError, match="not a git repository"):
        open_repo(tmp_path / "plain")
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(tmp_path / "bare.git")], check=True)
    with pytest.raises(UsageError) as info:
        open_repo(tmp_path / "bare.git")
    assert "bare" in info.value.problem and "work tree" in info.value.hint


def test_tree_entries_kinds_blobs_and_diff(repo) -> None:  # type: ignore[no-untyped-def]
    sub_sha = repo.head()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{sub_sha},vendor/sub")
    (repo.path / "link.ts").symlink_to("a.ts")
    repo.git("add", "link.ts")
    repo.git("commit", "-q", "-m", "sub+link")
    g = open_repo(repo.path)
    entries = {e.path: e for e in g.tree_entries(g.resolve("HEAD"))}
    assert entries["vendor/sub"].kind == "submodule" and entries["link.ts"].kind == "symlink"
    assert entries["docs/b.md"].kind == "file"
    assert entries["a.ts"].blob_id == repo.git("rev-parse", "HEAD:a.ts")
    blobs = dict(g.read_blobs([entries["a.ts"].blob_id]))
    assert blobs[entries["a.ts"].blob_id] == b"export const a = 1;\n"
    changes = g.diff_trees(g.resolve("v1"), g.resolve("HEAD"))
    assert {(c.kind, c.new_path) for c in changes} >= {("add", "c.ts"), ("add", "link.ts")}
    assert g.is_ancestor(g.resolve("v1"), g.resolve("HEAD")) and not g.is_ancestor(
        g.resolve("HEAD"), g.resolve("v1")
    )
    assert g.head_branch() == "main" and g.default_branch() == "main" and g.branch_commit("feature")
