"""The default catalog/label written by `monodex use`, and which catalog and label a command
answers for: explicit flags > where you stand (monodex/labels/standing.py) > `monodex use`."""

from __future__ import annotations

import difflib
import time
from dataclasses import dataclass
from pathlib import Path

from monodex import names
from monodex.disk import jsonfile
from monodex.disk.paths import Paths
from monodex.errors import UsageError
from monodex.git import refs
from monodex.labels import branchlabels, standing
from monodex.requests import FieldError
from monodex.settings import config
from monodex.settings.validate import Where, obj, string


@dataclass(frozen=True)
class Context:
    catalog: str | None
    label: str | None


def load(paths: Paths) -> Context:
    file = paths.context_file
    if not file.exists():
        return Context(None, None)
    where = Where(str(file))
    d = obj(jsonfile.read(file), where, allowed=("catalog", "label", "set_at"))
    catalog = string(d["catalog"], where / "catalog") if "catalog" in d else None
    label = string(d["label"], where / "label") if "label" in d else None
    return Context(catalog, label)


def save(paths: Paths, *, catalog: str, label: str) -> None:
    names.validate_catalog(catalog)
    names.validate_label(label)
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    jsonfile.write_atomic(paths.context_file, {"catalog": catalog, "label": label, "set_at": stamp})


@dataclass(frozen=True)
class Scope:
    """The catalog and label a command answers for, and where you stand when the answer is for
    that place (same catalog, and the label of the branch or detached commit checked out there)."""

    catalog: str
    label: str
    standing: standing.Standing | None

    @property
    def worktree(self) -> str | None:
        return str(self.standing.worktree) if self.standing else None


def scope(
    paths: Paths,
    catalog: str | None,
    label: str | None,
    *,
    branch: str | None = None,
    here: Path | None = None,
    worktree: str | None = None,
) -> Scope:
    """Explicit flags (`label`, or `branch` mapped as the hooks map it; `HEAD` is the branch
    checked out `here`) > where `here` stands > `monodex use` > a usage error. An explicit
    `worktree` (--worktree, MCP's worktree) stands in for `here` and must be a checkout."""
    cfg = config.load(paths)
    if catalog is not None:  # named and unknown: say so, not "no --label given" (issue 35)
        cfg.catalog(catalog)
    catalogs = {name: c.path for name, c in cfg.catalogs.items()}
    named = branch if branch and branch != "HEAD" else None
    if worktree:
        here = standing.require(Path(worktree), catalogs, what=f"worktree {worktree}").worktree
    stand = standing.find(here, catalogs) if here is not None else None
    if branch == "HEAD":
        label = _head_label(stand, here, catalog)
    elif named:
        label = names.label_for_branch(named)  # a valid name; its catalog's label is below
    if stand is not None and catalog in (None, stand.catalog):
        catalog = stand.catalog
        label = label or stand.label()
    try:
        catalog, label = catalog_and_label(paths, catalog, label)
    except FieldError as exc:
        top = standing.toplevel(here) if exc.field == "catalog" and here is not None else None
        if top is None:
            raise
        raise FieldError(  # standing in a repository nobody registered: say so, not "no context"
            "catalog",
            "no {name} given, and {top} is a repository not registered with monodex",
            advice="register it with 'monodex catalog add NAME {top}' (or pass {name})",
            facts={"top": str(top)},
        ) from None
    if named and catalog in catalogs:
        _branch_exists(catalog, catalogs[catalog], named)
    if named:  # the label the catalog gives that branch (another when a branch named alike holds this one)
        label = branch_label(paths, catalog, named)
    # An explicit worktree is kept for another label too: the answer then says its uncommitted
    # files were not laid over that label, rather than silently dropping them.
    same = stand is not None and stand.catalog == catalog
    same = same and stand is not None and (bool(worktree) or _label_or_none(stand) == label)
    return Scope(catalog, label, stand if same else None)


def _branch_exists(catalog: str, repo: Path, branch: str) -> None:
    """--branch names a branch of the repository (local, or a remote's): a name nobody has would
    otherwise become a label, and its hint a crawl of HEAD under that name."""
    known = refs.branch_names(repo)
    if known is None or branch in known:  # unreadable: the command itself reports the repository
        return
    close = difflib.get_close_matches(branch, sorted(known), n=3, cutoff=0.6)
    guess = f"did you mean {', '.join(close)}? " if close else ""
    raise UsageError(
        f"no branch {branch!r} in catalog {catalog!r} ({repo})",
        f"{guess}'git branch -a' lists the branches; a label whose branch is gone is named with --label",
    )


def branch_label(paths: Paths, catalog: str, branch: str) -> str:
    """`--branch NAME`: the label catalog `catalog` gives that branch (monodex/labels/branchlabels.py);
    the plain mapping when the catalog is not registered (its branches cannot be read)."""
    found = config.load(paths).catalogs.get(catalog)
    if found is None:
        return names.label_for_branch(branch)
    return branchlabels.of_repo(catalog, found.path, paths.state_dir).label(branch)


def _head_label(stand: standing.Standing | None, here: Path | None, catalog: str | None) -> str:
    """`--branch HEAD`: the label of what is checked out where you stand."""
    if stand is None or (catalog is not None and catalog != stand.catalog):
        where = f"{here} is" if here is not None else "this command is"
        raise UsageError(
            f"--branch HEAD names the branch checked out where you stand, but {where} not "
            f"inside a checkout of {'catalog ' + repr(catalog) if catalog else 'a registered catalog'}",
            "run it inside the repository or one of its worktrees, or name the branch",
        )
    label = stand.label()
    if label is None:
        raise UsageError(
            f"--branch HEAD: {stand.worktree} is on a branch with no commit yet",
            "commit first, or name another branch",
        )
    return label


def _label_or_none(stand: standing.Standing) -> str | None:
    try:
        return stand.label()
    except UsageError:  # a branch that maps to no label: the answer is not for it
        return None


def catalog_and_label(paths: Paths, catalog: str | None, label: str | None) -> tuple[str, str]:
    """Explicit values win; otherwise the `monodex use` context; otherwise a usage error."""
    ctx = load(paths) if catalog is None or label is None else Context(None, None)
    catalog = catalog or ctx.catalog
    label = label or ctx.label
    missing = [n for n, v in (("catalog", catalog), ("label", label)) if not v]
    if missing:
        # a FieldError: the CLI names the flag (--catalog), MCP its parameter (catalog)
        also = " (nor the label)" if len(missing) == 2 else ""
        raise FieldError(
            missing[0],
            f"no {{name}} given{also} and no default context set",
            advice="pass {name}, or set a default with 'monodex use --catalog C --label L'",
        )
    assert catalog and label
    return names.validate_catalog(catalog), names.validate_label(label)


def resolve_catalog(paths: Paths, catalog: str | None, *, here: Path | None = None) -> str:
    """The catalog alone (a question across its labels): the flag, else the repository `here`
    stands in, else the `monodex use` one."""
    return catalog_here(paths, catalog, here=here)[0]


def catalog_here(
    paths: Paths, catalog: str | None, *, here: Path | None, worktree: str | None = None
) -> tuple[str, standing.Standing | None]:
    """resolve_catalog, and where `here` (or an explicit `worktree`, which must be a checkout)
    stands when that is a checkout of the catalog (`labels --containing`: whose version)."""
    stand = None
    if here is not None or worktree:
        catalogs = {name: c.path for name, c in config.load(paths).catalogs.items()}
        if worktree:
            stand = standing.require(Path(worktree), catalogs, what=f"worktree {worktree}")
        elif here is not None:
            stand = standing.find(here, catalogs)
    catalog = catalog or (stand.catalog if stand is not None else None) or load(paths).catalog
    if not catalog:
        raise FieldError(
            "catalog",
            "no {name} given and no default context set",
            advice="pass {name}, or set a default with 'monodex use --catalog C --label L'",
        )
    names.validate_catalog(catalog)
    return catalog, (stand if stand is not None and stand.catalog == catalog else None)
