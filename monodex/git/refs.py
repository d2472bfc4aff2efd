"""Where a repository's branches and checkouts point, by asking git: the one reader (freshness,
status, verify, the runner's ref poll and its refreshes, where a folder stands all ask here).
Hooks read HEAD and one ref from the files instead (files.py): they run inside `git commit` and
must not start a process.

`git for-each-ref refs/heads/` costs ~3 ms on any repository. dulwich, asked for the same, parses
and validates every line of packed-refs: on microsoft/rushstack (25,592 refs, mostly tags) that
was ~150 ms, paid by every search answer's freshness line."""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple, TypedDict

from monodex import names
from monodex.git.cli import Failed, output, run


def branch_heads(repo: Path) -> dict[str, str] | None:
    """{branch: commit} of the repository's local branches, or None when it cannot be read."""
    out = output(repo, "for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/")
    if out is None:
        return None
    pairs = (line.split(" ", 1) for line in out.splitlines() if " " in line)
    return {ref.removeprefix("refs/heads/"): oid for oid, ref in pairs}


def branch_names(repo: Path) -> set[str] | None:
    """The names of the repository's branches, local and its remotes' (`origin/x` as `x` and as
    `origin/x`), or None when they cannot be read."""
    out = output(repo, "for-each-ref", "--format=%(refname)", "refs/heads/", "refs/remotes/")
    if out is None:
        return None
    found: set[str] = set()
    for ref in out.split():
        if ref.startswith("refs/heads/"):
            found.add(ref.removeprefix("refs/heads/"))
        elif not ref.endswith("/HEAD"):
            remote_branch = ref.removeprefix("refs/remotes/")
            found |= {remote_branch, remote_branch.partition("/")[2]}
    return found


def default_branch(repo: Path) -> tuple[str, str] | None:
    """(branch, revision of its tip) of the repository's default branch: the one the hooks refresh
    by default (names.default_branch: where origin/HEAD points, else main or master), else the
    branch checked out. The revision is the local branch, or origin's when only origin has it;
    None on a detached HEAD with no such branch, or when the branches cannot be read."""
    heads = branch_heads(repo)
    if heads is None:
        return None
    origin = (output(repo, "symbolic-ref", "-q", "refs/remotes/origin/HEAD", check=False) or "").strip()
    branch = names.default_branch(origin or None, heads.__contains__)
    if branch is None:
        branch = (output(repo, "symbolic-ref", "-q", "--short", "HEAD", check=False) or "").strip()
    if branch in heads:
        return branch, branch
    if branch and origin.endswith("/" + branch):  # a fresh clone's default branch, never checked out
        return branch, f"origin/{branch}"
    return None


def resolve_commit(repo: Path, revision: str) -> str | None:
    """The full commit id a revision (a short sha, a branch) names in `repo`, or None."""
    out = output(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}", check=False)
    return (out or "").strip() or None


class Worktree(TypedDict):
    path: str
    head: str | None
    branch: str | None  # None when detached


def worktrees(repo: Path) -> list[Worktree] | None:
    """Every checkout of the repository (`git worktree list --porcelain`: the main one first,
    then the linked ones): {"path", "head", "branch"}, branch None when detached; None when it
    cannot be read. A worktree removed or pruned is no longer listed."""
    out = output(repo, "worktree", "list", "--porcelain")
    if out is None:
        return None
    found: list[Worktree] = []
    for block in out.strip().split("\n\n"):
        fields = dict(line.partition(" ")[::2] for line in block.splitlines())
        if "worktree" in fields and "bare" not in fields:
            branch = fields.get("branch") or ""
            found.append(
                {
                    "path": fields["worktree"],
                    "head": fields.get("HEAD") or None,
                    "branch": branch.removeprefix("refs/heads/") or None,
                }
            )
    return found


def unreadable(name: str, repo: Path) -> tuple[str, str]:
    """Why catalog `name`'s branches cannot be read (branch_heads gave None), and the fix."""
    hint = f"if the repository moved: monodex catalog add {name} NEWPATH --force"
    if not repo.is_dir():
        return f"the repository of catalog {name!r} is missing at {repo}", hint
    return f"cannot read the branches of {repo} (catalog {name!r}): is it still a git repository?", hint


def ref_commit(repo: Path, ref: str) -> str | None:
    """The commit refs/heads/<branch> points at now; None when gone or unreadable."""
    heads = branch_heads(repo)
    return heads.get(ref.removeprefix("refs/heads/")) if heads is not None else None


class Here(NamedTuple):
    """Where a folder stands, as one `git rev-parse` tells: its repository's common git dir, the
    top folder of its checkout, HEAD's commit (None on an unborn branch) and HEAD's symbolic name
    (refs/heads/<branch>, or "HEAD" when detached)."""

    common_dir: Path
    toplevel: Path
    commit: str | None
    symbolic: str


def here(directory: Path) -> Here | None:
    """Where `directory` stands (~2-3 ms), or None outside a checkout (or in a git dir, a bare
    repository: no worktree)."""
    args = ["rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel", "HEAD"]
    try:
        proc = run(directory, *args, "--symbolic-full-name", "HEAD", check=False)
    except Failed:
        return None
    lines = proc.stdout.splitlines()
    if len(lines) == 4 and proc.returncode == 0:
        return Here(Path(lines[0]), Path(lines[1]), lines[2], lines[3])
    if len(lines) == 3 and lines[2] == "HEAD":  # an unborn branch: no commit yet
        return Here(Path(lines[0]), Path(lines[1]), None, "HEAD")
    return None
