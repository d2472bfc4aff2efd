"""One branch, one label (DESIGN.md): a catalog's branch -> label mapping, injective and stable.

A branch gets its name mapped (names.label_for_branch: `feature/Login_Flow` ->
`feature/login-flow`) unless another branch holds that label, or the name maps into `commit/`
(the labels of detached HEADs): then it gets the mapped name plus a short hash of its exact name
(`feature/walk-one-3f2a91c0`). Which of two branches that map alike keeps the plain label is
decided once and remembered: the first one given a label (by a hook, the runner's refs check, a
search standing on it) claims it in a small state file per catalog, which hooks read without
opening the index. Until a claim exists, the branch spelled exactly like the label wins, then the
first by name (the rule `tracked_branch` had). Stdlib only: the hooks use it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from monodex import names
from monodex.disk import jsonfile
from monodex.errors import UsageError

_HASH_LENGTHS = (8, 16, 40)  # longer only when a shorter one is taken (a branch named like a hash)


def _file(state_dir: Path, catalog: str, suffix: str = ".json") -> Path:
    # Catalog names never contain '.', so "<catalog>.branches.json" clashes with no other file.
    return state_dir / "labels" / f"{catalog}.branches{suffix}"


def hashed(branch: str, base: str, taken: Iterable[str] = ()) -> str:
    """`base` plus a short hash of the exact branch name, kept within the label length limit."""
    busy = set(taken)
    candidates = [_suffixed(branch, base, n) for n in _HASH_LENGTHS]
    return next((label for label in candidates if label not in busy), candidates[-1])


def _suffixed(branch: str, base: str, n: int) -> str:
    digest = hashlib.sha1(branch.encode("utf-8", "surrogateescape")).hexdigest()
    return f"{base[: 127 - n].rstrip('./=-')}-{digest[:n]}"


def plan(branches: Iterable[str], assigned: Mapping[str, str]) -> dict[str, str]:
    """{branch: label} for every branch that maps to a valid label (pure; see the module)."""
    out: dict[str, str] = {}
    groups: dict[str, list[str]] = defaultdict(list)
    for branch in branches:
        if branch in assigned:
            out[branch] = assigned[branch]
            continue
        with contextlib.suppress(UsageError):
            groups[names.label_for_branch(branch)].append(branch)
    taken = set(assigned.values())
    losers: list[tuple[str, str]] = []
    for base, members in groups.items():
        members.sort(key=lambda b: (b != base, b))
        if base in taken or base.startswith(names.COMMIT_LABEL_PREFIX):
            losers += [(b, base) for b in members]
            continue
        out[members[0]] = base
        taken.add(base)
        losers += [(b, base) for b in members[1:]]
    reserved = taken | set(groups)  # never a label another branch's name maps to
    for branch, base in sorted(losers):
        out[branch] = hashed(branch, base, reserved)
        reserved.add(out[branch])
    return out


def _base(branch: str) -> str | None:
    try:
        return names.label_for_branch(branch)
    except UsageError:
        return None


class BranchLabels:
    """A catalog's mapping over a set of branches, as the state file has it now."""

    def __init__(self, branches: Iterable[str], assigned: Mapping[str, str]) -> None:
        self.branches = set(branches)
        self.assigned = dict(assigned)
        self.by_branch = plan(self.branches, self.assigned)
        self.by_label = {label: branch for branch, label in self.by_branch.items() if branch in self.branches}

    def label(self, branch: str) -> str:
        """The branch's label; UsageError when its name maps to no valid label."""
        if branch not in self.by_branch:
            found = plan(self.branches | {branch}, self.assigned).get(branch)
            if found is None:
                names.label_for_branch(branch)  # raises the error that says why
            assert found is not None
            return found
        return self.by_branch[branch]

    def branch(self, label: str) -> str | None:
        """The existing branch the label belongs to, or None (deleted, a tag's or a commit's)."""
        return self.by_label.get(label)

    def tip(self, label: str, heads: Mapping[str, str]) -> tuple[str, str] | None:
        """(branch, commit) of the label's branch in `heads`, or None."""
        branch = self.by_label.get(label)
        return (branch, heads[branch]) if branch is not None and branch in heads else None


def assigned(state_dir: Path, catalog: str) -> dict[str, str]:
    """{branch: label} claimed so far (an unreadable file claims nothing)."""
    try:
        data = json.loads(_file(state_dir, catalog).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {b: lb for b, lb in data.items() if isinstance(b, str) and isinstance(lb, str)}


def load(state_dir: Path, catalog: str, branches: Iterable[str]) -> BranchLabels:
    return BranchLabels(branches, assigned(state_dir, catalog))


def of_repo(catalog: str, repo: Path, state_dir: Path | None = None) -> BranchLabels:
    """The mapping over the branches of `repo` (one `git for-each-ref`; none when unreadable)."""
    from monodex.disk import paths  # here: the hook path lists branches from the files
    from monodex.git import refs

    state = state_dir if state_dir is not None else paths.resolve().state_dir
    return load(state, catalog, refs.branch_heads(repo) or {})


@contextlib.contextmanager
def _claims(state_dir: Path, catalog: str) -> Iterator[dict[str, str]]:
    """The claims, read and written back (when changed) under the catalog's lock."""
    lock = _file(state_dir, catalog, ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            claims = assigned(state_dir, catalog)
            before = dict(claims)
            yield claims
            if claims != before:
                jsonfile.write_atomic(_file(state_dir, catalog), dict(sorted(claims.items())))
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def claim(state_dir: Path, catalog: str, branch: str, branches: Iterable[str]) -> str:
    """The branch's label, remembered from now on (a label is about to hold the branch)."""
    return claim_many(state_dir, catalog, [branch], branches)[branch]


def claim_many(
    state_dir: Path, catalog: str, wanted: Iterable[str], branches: Iterable[str]
) -> dict[str, str]:
    """claim() for several branches at once (one lock, one write); UsageError for a branch
    whose name maps to no valid label."""
    wanted = list(wanted)
    with _claims(state_dir, catalog) as claims:
        owners = BranchLabels({*branches, *wanted}, claims)
        for branch in wanted:
            claims[branch] = owners.label(branch)
        return {branch: claims[branch] for branch in wanted}


def settle(
    state_dir: Path, catalog: str, heads: Iterable[str], existing: Mapping[str, str | None]
) -> BranchLabels:
    """The refs check's pass: every existing label claimed for its branch (`existing`: label ->
    the branch it was last refreshed from, if known; a label from before claims keeps that
    branch), and claims of branches gone whose label is gone too forgotten."""
    branches = set(heads)
    with _claims(state_dir, catalog) as claims:
        for branch, label in list(claims.items()):
            if branch not in branches and label not in existing:
                del claims[branch]
        held = set(claims.values())
        for label, remembered in existing.items():
            free = remembered in branches and remembered not in claims and label not in held
            if remembered is not None and free and label in _labels_of(remembered):
                claims[remembered] = label
                held.add(label)
        owners = BranchLabels(branches, claims)
        for label in existing:
            if (owner := owners.branch(label)) is not None:
                claims[owner] = label
    return BranchLabels(branches, claims)


def _labels_of(branch: str) -> set[str]:
    """Every label the branch may have been given: its mapped name, or that name hashed."""
    base = _base(branch)
    if base is None:
        return set()
    return {base} | {_suffixed(branch, base, n) for n in _HASH_LENGTHS}


def release(state_dir: Path, catalog: str, label: str) -> None:
    """The label is gone with its branch: a later branch may map to it again."""
    with _claims(state_dir, catalog) as claims:
        for branch in [b for b, lb in claims.items() if lb == label]:
            del claims[branch]


def forget(state_dir: Path, catalog: str) -> None:
    """The catalog's labels are all gone (`catalog rm --purge`)."""
    for suffix in (".json", ".lock"):
        _file(state_dir, catalog, suffix).unlink(missing_ok=True)
