"""Where you stand: the registered catalog, worktree, branch and commit of a directory.

A directory belongs to a catalog when its repository's COMMON git dir is the catalog's: the main
checkout, any linked worktree (`git worktree add`) and any subfolder of them all share it, while
each worktree has its own top folder and HEAD. One `git rev-parse` answers the rest (~2-3 ms:
git/refs.here); a catalog's common dir is read from its `.git` files without running git
(git/files.common_dir). Stdlib only: the CLI, the MCP server and the hooks use it.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from monodex import names
from monodex.errors import UsageError
from monodex.git import files
from monodex.labels import branchlabels

# The label a detached HEAD is answered with: its commit, by its first 12 hex digits.
COMMIT_LABEL_PREFIX = names.COMMIT_LABEL_PREFIX
_SHORT = 12


@dataclass(frozen=True)
class Standing:
    catalog: str
    worktree: Path  # the top folder of the checkout (main or linked) the directory is in
    branch: str | None  # the branch checked out there; None when HEAD is detached (or unborn)
    commit: str | None  # HEAD's commit; None on an unborn branch

    @property
    def detached(self) -> bool:
        return self.branch is None and self.commit is not None

    def label(self) -> str | None:
        """The label that answers for this place: the branch's (branchlabels.py: its own, even
        when another branch's name maps alike), or the commit's when detached."""
        if self.branch is not None:
            return self._branch_label
        return commit_label(self.commit) if self.commit else None

    @functools.cached_property
    def _branch_label(self) -> str:
        assert self.branch is not None
        return branchlabels.of_repo(self.catalog, self.worktree).label(self.branch)


def commit_label(commit: str) -> str:
    return COMMIT_LABEL_PREFIX + commit[:_SHORT].lower()


def commit_of_label(label: str) -> str | None:
    """The (short) commit a detached HEAD's label names, else None."""
    rest = label.removeprefix(COMMIT_LABEL_PREFIX)
    is_hex = rest != label and len(rest) >= 7 and all(c in "0123456789abcdef" for c in rest)
    return rest if is_hex else None


def catalog_of(common: Path, catalogs: Mapping[str, Path], *, worktree: Path | None = None) -> str | None:
    """The registered catalog whose repository has this common git dir. Should two catalogs name
    checkouts of one repository, the one registered at `worktree` itself wins."""
    target = common.resolve()
    matches = [name for name, path in catalogs.items() if files.common_dir(path) == target]
    exact = [n for n in matches if worktree is not None and catalogs[n].resolve() == worktree.resolve()]
    return next(iter(exact or matches), None)


def find(directory: Path, catalogs: Mapping[str, Path]) -> Standing | None:
    """Where `directory` stands, or None outside a git checkout or a registered catalog."""
    from monodex.git import refs  # here: the hook path needs only catalog_of, and subprocess costs ms

    found = refs.here(directory)
    if found is None:
        return None
    catalog = catalog_of(found.common_dir, catalogs, worktree=found.toplevel)
    if catalog is None:
        return None
    symbolic = found.symbolic
    branch = symbolic.removeprefix("refs/heads/") if symbolic.startswith("refs/heads/") else None
    return Standing(catalog, found.toplevel, branch, found.commit)


def toplevel(directory: Path) -> Path | None:
    """The top folder of the git checkout `directory` is in, registered or not."""
    from monodex.git import refs

    found = refs.here(directory)
    return found.toplevel if found is not None else None


def require(directory: Path, catalogs: Mapping[str, Path], *, what: str) -> Standing:
    """Where `directory` stands, or a usage error saying why it stands nowhere."""
    found = find(directory, catalogs)
    if found is None:
        raise UsageError(
            f"{what}: {directory} is not inside a checkout of a registered catalog",
            "run it inside the repository (or one of its worktrees), or register it with "
            "'monodex catalog add NAME PATH'",
        )
    return found
