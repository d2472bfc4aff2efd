"""Git objects through dulwich: the only importer of dulwich (no `git` subprocess anywhere)."""

from __future__ import annotations

import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dulwich import objectspec
from dulwich.diff_tree import RenameDetector, tree_changes
from dulwich.errors import NotGitRepository
from dulwich.objects import Blob, Commit, Tag, Tree
from dulwich.repo import Repo

from monodex.errors import MonodexError, UsageError

_HEX = re.compile(r"^[0-9a-fA-F]{4,40}$")
_SUFFIX = re.compile(r"^(.+?)((?:[~^]\d*)+)$")


@dataclass(frozen=True)
class TreeEntry:
    path: str
    blob_id: str
    mode: int
    kind: str  # file | symlink | submodule


@dataclass(frozen=True)
class Change:
    kind: str  # add | modify | delete | rename | copy
    old_path: str | None
    new_path: str | None
    old_blob: str | None
    new_blob: str | None


def open_repo(path: Path | str) -> GitRepo:
    root = Path(path).expanduser()
    if not root.exists():
        raise UsageError(f"{root} does not exist", "check the catalog path with 'monodex catalog list'")
    try:
        repo = Repo(str(root))
    except NotGitRepository:
        raise UsageError(f"{root} is not a git repository", "pass the root of a git work tree") from None
    if repo.bare:
        raise UsageError(
            f"{root} is a bare repository",
            "monodex indexes a work tree; pass the repository root of a clone",
        )
    return GitRepo(repo)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if mode & 0o170000 == 0o160000:
        return "submodule"
    return "file"


class GitRepo:
    def __init__(self, repo: Repo) -> None:
        # dulwich types ids as NewTypes over bytes; we keep hex strings at our edge instead.
        self.repo: Any = repo
        self.workdir = Path(repo.path)
        self.undecodable_paths = 0

    def resolve(self, rev: str) -> str:
        """A revision (HEAD, branch, tag, full or short SHA, rev~N, rev^N) as a 40-hex commit id."""
        m = _SUFFIX.match(rev)
        base, steps = (m[1], m[2]) if m else (rev, "")
        sha = self._resolve_base(base, rev)
        for op, num in re.findall(r"([~^])(\d*)", steps):
            n = int(num) if num else 1
            commit = self._commit(sha)
            parents = commit.parents
            if op == "~":
                for _ in range(n):
                    if not parents:
                        raise UsageError(f"revision {rev!r} goes past the first commit", "use fewer ~")
                    sha = parents[0].decode()
                    parents = self._commit(sha).parents
            elif n == 0:
                continue
            elif n > len(parents):
                raise UsageError(f"revision {rev!r}: commit has {len(parents)} parents", "check ^N")
            else:
                sha = parents[n - 1].decode()
        return sha

    def _resolve_base(self, base: str, rev: str) -> str:
        try:
            commit = objectspec.parse_commit(self.repo, base.encode())
        except (KeyError, ValueError, NotGitRepository) as exc:
            if _HEX.match(rev) and "ambiguous" in str(exc).lower():
                raise UsageError(f"revision {rev!r} is ambiguous", "give more digits of the SHA") from exc
            raise UsageError(
                f"unknown revision {rev!r} in {self.workdir}",
                "pass a branch, tag or commit SHA that exists (see 'git log --oneline')",
            ) from exc
        except Exception as exc:  # dulwich raises assorted errors for odd specs
            raise UsageError(f"cannot resolve revision {rev!r}: {exc}", "pass a branch, tag or SHA") from exc
        return str(commit.id.decode())

    def _commit(self, sha: str) -> Commit:
        obj = self.repo[sha.encode()]
        while isinstance(obj, Tag):
            obj = self.repo[obj.object[1]]
        if not isinstance(obj, Commit):
            raise UsageError(f"{sha} is not a commit", "pass a commit")
        return obj

    def tree_entries(self, commit_sha: str) -> list[TreeEntry]:
        out: list[TreeEntry] = []
        self._walk(self._commit(commit_sha).tree, "", out)
        return out

    def _walk(self, tree_id: bytes, prefix: str, out: list[TreeEntry]) -> None:
        tree = self.repo.object_store[tree_id]
        assert isinstance(tree, Tree)
        for entry in tree.iteritems():
            try:
                name = entry.path.decode("utf-8")
            except UnicodeDecodeError:
                self.undecodable_paths += 1
                continue
            path = f"{prefix}{name}"
            if stat.S_ISDIR(entry.mode):
                self._walk(entry.sha, path + "/", out)
            else:
                out.append(TreeEntry(path, entry.sha.decode(), entry.mode, _kind(entry.mode)))

    def read_blobs(self, blob_ids: Iterable[str]) -> Iterator[tuple[str, bytes]]:
        store = self.repo.object_store
        for blob_id in blob_ids:
            obj = store[blob_id.encode()]
            assert isinstance(obj, Blob)
            yield blob_id, obj.as_raw_string()

    def blob_size(self, blob_id: str) -> int:
        # get_raw decompresses, but objects are small and this is not on the hot path
        _, raw = self.repo.object_store.get_raw(blob_id.encode())
        return len(raw)

    def head_branch(self) -> str | None:
        try:
            target = self.repo.refs.get_symrefs().get(b"HEAD")
        except Exception:
            return None
        if target and target.startswith(b"refs/heads/"):
            return str(target[len(b"refs/heads/") :].decode())
        return None

    def branch_commit(self, name: str) -> str | None:
        ref = f"refs/heads/{name}".encode()
        return self.repo.refs[ref].decode() if ref in self.repo.refs else None

    def default_branch(self) -> str | None:
        remote_head = self.repo.refs.get_symrefs().get(b"refs/remotes/origin/HEAD")
        if remote_head:
            return str(remote_head.rsplit(b"/", 1)[-1].decode())
        for name in ("main", "master"):
            if self.branch_commit(name):
                return name
        return self.head_branch()

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        seen: set[bytes] = set()
        todo = [descendant.encode()]
        target = ancestor.encode()
        while todo:
            sha = todo.pop()
            if sha == target:
                return True
            if sha in seen or sha not in self.repo.object_store:
                continue
            seen.add(sha)
            todo.extend(self._commit(sha.decode()).parents)
        return False

    def diff_trees(self, old_commit: str, new_commit: str) -> list[Change]:
        store: Any = self.repo.object_store
        old_tree, new_tree = self._commit(old_commit).tree, self._commit(new_commit).tree
        detector = RenameDetector(store)
        changes = []
        for ch in tree_changes(store, old_tree, new_tree, rename_detector=detector):
            old: Any = ch.old
            new: Any = ch.new
            changes.append(
                Change(
                    kind=str(ch.type),
                    old_path=old.path.decode() if old and old.path else None,
                    new_path=new.path.decode() if new and new.path else None,
                    old_blob=old.sha.decode() if old and old.sha else None,
                    new_blob=new.sha.decode() if new and new.sha else None,
                )
            )
        return changes


def translate(exc: Exception) -> MonodexError:
    return MonodexError(f"reading git objects failed: {exc}", "check the repository with 'git fsck'")


def ignore_filter(root: Path) -> Any:
    """A predicate telling whether a work-tree path is ignored by .gitignore rules."""
    from dulwich.ignore import IgnoreFilterManager

    try:
        manager = IgnoreFilterManager.from_repo(Repo(str(root)))
    except Exception:
        return lambda path: False

    def is_ignored(path: str) -> bool:
        try:
            return bool(manager.is_ignored(path))
        except Exception:
            return False

    return is_ignored
