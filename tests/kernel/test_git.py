"""monodex/git/: every question monodex asks git about refs, checkouts and history, on real
repositories (objects, through dulwich, are tests/indexer/git/test_gitobjects.py's)."""

from __future__ import annotations

import subprocess

import pytest

from monodex.git import files, log, refs
from monodex.git import status as gitstatus


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
    status = gitstatus.parse(out)
    assert status.branch == "feature/x" and status.head == "1" * 40
    assert status.paths == {
        "src/a file.ts",
        "src/gone.ts",
        "src/new.ts",
        "src/old.ts",
        "src/conflict.ts",
        "notes/todo.md",
    }
    detached = gitstatus.parse(b"# branch.oid (initial)\0# branch.head (detached)\0")
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
    status = gitstatus.status(repo.path)
    assert status.branch == "main" and status.head == repo.head()
    assert status.paths == {"a.ts", "b.ts", "new/c.ts"}
    assert gitstatus.status(wt).paths == set() and gitstatus.status(wt).branch == "side"
    assert files.common_dir(wt) == files.common_dir(repo.path) == (repo.path / ".git").resolve()
    assert files.head_branch(wt) == "side" and files.top(wt / "x" / "y") == wt


def test_the_files_answer_as_git_does_in_a_linked_worktree_with_packed_refs(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "export const a = 1;\n"})
    first = repo.head()
    repo.git("branch", "feature/x")
    repo.git("pack-refs", "--all")  # feature/x and main now only in packed-refs
    second = repo.commit("second")  # main loose again, at its new commit
    wt = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(wt), "feature/x")
    (wt / "sub").mkdir()
    dirs = files.find(wt / "sub")
    assert dirs is not None and dirs.worktree == wt.resolve()
    assert dirs.common_dir == (repo.path / ".git").resolve() != dirs.git_dir
    assert files.head(dirs) == ("refs/heads/feature/x", first)
    assert files.read_ref(dirs, "refs/heads/main") == second and files.read_ref(dirs, "refs/heads/no") is None
    assert files.branches(dirs) == ["feature/x", "main"]
    assert files.hooks_path(dirs) is None
    repo.git("config", "core.hooksPath", ".husky")
    assert files.hooks_path(dirs) == ".husky"
    assert files.find(tmp_path) is None


def test_the_common_dir_of_a_bare_repository_and_of_a_pruned_worktree(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "export const a = 1;\n"})
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], check=True)
    assert files.common_dir(bare) == bare.resolve()
    wt = tmp_path / "gone"
    repo.git("worktree", "add", "-q", "-b", "gone", str(wt))
    repo.git("worktree", "remove", "--force", str(wt))
    wt.mkdir()
    (wt / ".git").write_text(f"gitdir: {repo.path}/.git/worktrees/gone\n")  # left behind, pruned
    assert files.common_dir(wt) is None and files.head_branch(wt) is None
    assert files.common_dir(tmp_path) is None


def test_refs_read_branches_the_default_branch_and_where_a_folder_stands(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "export const a = 1;\n"}, branch="trunk")
    head = repo.head()
    repo.git("branch", "side")
    assert refs.branch_heads(repo.path) == {"trunk": head, "side": head}
    assert (
        refs.ref_commit(repo.path, "refs/heads/side") == head
        and refs.ref_commit(repo.path, "refs/heads/x") is None
    )
    assert refs.resolve_commit(repo.path, head[:8]) == head and refs.resolve_commit(repo.path, "nope") is None
    assert refs.default_branch(repo.path) == ("trunk", "trunk")  # no main or master: the one checked out
    repo.git("checkout", "-q", "--detach")
    repo.git("branch", "-q", "-D", "trunk")
    repo.git("update-ref", "refs/remotes/origin/trunk", head)
    repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/trunk")
    assert refs.default_branch(repo.path) == ("trunk", "origin/trunk")  # a fresh clone's: origin's
    assert refs.branch_names(repo.path) == {"side", "origin/trunk", "trunk"}
    here = refs.here(repo.path / ".")
    assert (
        here is not None
        and here.toplevel == repo.path.resolve()
        and here.commit == head
        and here.symbolic == "HEAD"
    )
    assert refs.here(tmp_path) is None and refs.branch_heads(tmp_path / "none") is None
    assert (
        refs.unreadable("acme", tmp_path / "none")[0]
        == f"the repository of catalog 'acme' is missing at {tmp_path / 'none'}"
    )
    [main] = refs.worktrees(repo.path) or []
    assert main == {"path": str(repo.path.resolve()), "head": head, "branch": None}


def test_the_log_lists_each_commits_files_and_renames_newest_first(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "export const a = 1;\n" * 20})
    first = repo.head()
    repo.git("mv", "a.ts", "b.ts")
    second = repo.commit("move")
    text = log.files_per_commit(repo.path, second, max_commits=10)
    records = [r.splitlines() for r in text.split("\0")[1:]]
    assert [r[0].split()[0] for r in records] == [second, first]
    assert "R100\ta.ts\tb.ts" in records[0] and "A\ta.ts" in records[1]
    assert log.files_per_commit(repo.path, second, stop_at=[first], max_commits=10).count("\0") == 1
    with pytest.raises(subprocess.CalledProcessError):
        log.files_per_commit(repo.path, "no-such-commit", max_commits=10)
    titles = log.first_parent(repo.path, second, max_commits=10, fmt="%x00%H%x1f%s%x1e")
    assert titles.startswith(f"\0{second}\x1fmove\x1e".encode())
