"""Labels against their branches, compared cheaply (one `git for-each-ref` per catalog, the
runner's `refs` job, at start-up and every few seconds): a branch that moved without a hook
(`reset`, `branch -f`, `update-ref`, a fetch into it) gets its label's refresh queued; a branch
a track glob matches that has no label yet (made with `git branch`, no hook ran) gets one queued
(derived from the nearest label: cheap for a branch fresh from main); a label whose branch is
gone is marked with the time it was first seen gone, unmarked when the branch comes back
(nothing to re-index), and removed once the catalog's grace period has passed (GC reclaims its
chunks). Which branch a label belongs to is the catalog's claims (monodex/labels/branchlabels.py),
settled here first: two branches that map alike never share one."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from monodex.indexer.follow import refresh
from monodex.indexer.points import labelmeta
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.session import Session
from monodex.indexer.upkeep import lifecycle

from monodex import names
from monodex.git import refs
from monodex.labels import branchlabels, known_labels
from monodex.labels.branchlabels import BranchLabels
from monodex.observe import logs
from monodex.runner import spool
from monodex.schema.crawl import PollAnswer
from monodex.schema.payload import Key
from monodex.settings.config import Catalog

DAY = 86400.0


@dataclass
class PollReport:
    queued: list[str] = field(default_factory=list)  # label ids whose branch moved
    created: list[str] = field(default_factory=list)  # new branches a track glob matches: queued
    marked: list[str] = field(default_factory=list)  # branch gone: marked
    unmarked: list[str] = field(default_factory=list)  # branch back within the grace period
    removed: list[str] = field(default_factory=list)  # gone longer than the grace period
    problems: list[str] = field(default_factory=list)  # catalogs whose branches could not be read

    def as_json(self) -> PollAnswer:
        return {
            "queued": list(self.queued),
            "created": list(self.created),
            "marked": list(self.marked),
            "unmarked": list(self.unmarked),
            "removed": list(self.removed),
            "problems": list(self.problems),
        }


def poll(s: Session, queue: spool.Spool, *, now: float) -> PollReport:
    """Every catalog's branches against its labels; see the module's docstring."""
    report = PollReport()
    if s.store.info() is None:
        return report
    for cat in s.config().catalogs.values():
        heads = refs.branch_heads(cat.path)
        if not heads:  # unreadable (or no branch at all): never take that for "all deleted"
            report.problems.append(f"{cat.name}: cannot read the branches of {cat.path}")
            continue
        states = labelmeta.list_all(s.store, cat.name)
        existing = {st.label: str(st.extra.get(Key.BRANCH) or "") or None for st in states}
        owners = branchlabels.settle(s.paths.state_dir, cat.name, heads, existing)
        waiting = queue.keys()
        for state in states:
            if state.source_kind == "git-commit":
                _check(s, queue, cat, state, heads, owners, waiting, now=now, report=report)
        queued = {key.partition(":")[2] for key in waiting if key.startswith(f"{cat.name}:")}
        _create(s, queue, cat, heads, owners, set(existing) | queued, now=now, report=report)
    return report


def _create(
    s: Session,
    queue: spool.Spool,
    cat: Catalog,
    heads: dict[str, str],
    owners: BranchLabels,
    known: set[str],
    *,
    now: float,
    report: PollReport,
) -> None:
    """A label queued for every branch a track glob matches that has none (`known`: the
    catalog's labels and those with a refresh queued), unless the user removed that label
    (`labels rm` wins, as in the hooks)."""
    if not cat.track:
        return
    removed = known_labels.removed(s.paths.state_dir, cat.name)
    new = [
        (branch, label)
        for branch, label in sorted(owners.by_branch.items())
        if branch in heads
        and label not in known
        and label not in removed
        and any(fnmatch.fnmatchcase(branch, p) for p in cat.track)
    ]
    claimed = branchlabels.claim_many(s.paths.state_dir, cat.name, [b for b, _ in new], heads)
    for branch, label in claimed.items():
        _enqueue(queue, cat, label, branch, heads[branch], now=now)
        report.created.append(names.label_id(cat.name, label))


def _enqueue(queue: spool.Spool, cat: Catalog, label: str, branch: str, commit: str, *, now: float) -> None:
    # hook "ref-poll", like a hook's: a label removed with `labels rm` stays removed
    refresh.ask(queue, cat, label, ref=f"refs/heads/{branch}", commit=commit, hook="ref-poll", at=now)


def _check(
    s: Session,
    queue: spool.Spool,
    cat: Catalog,
    state: LabelState,
    heads: dict[str, str],
    owners: BranchLabels,
    waiting: set[str],
    *,
    now: float,
    report: PollReport,
) -> None:
    tip = owners.tip(state.label, heads)
    if tip is None:
        _gone(s, cat, state, now=now, report=report)
        return
    branch, commit = tip
    if state.extra.get(Key.BRANCH) != branch or labelmeta.branch_deleted_at(state):
        if labelmeta.branch_deleted_at(state):
            report.unmarked.append(state.label_id)
            logs.get("monodex.labels").info("label.branch_back", label=state.label_id, branch=branch)
        labelmeta.remember_branch(s.store, state.label_id, branch)
    if commit != labelmeta.target_commit(state) and state.label_id not in waiting:
        _enqueue(queue, cat, state.label, branch, commit, now=now)
        report.queued.append(state.label_id)


def _gone(s: Session, cat: Catalog, state: LabelState, *, now: float, report: PollReport) -> None:
    if not state.extra.get(Key.BRANCH):
        return  # never seen with a branch: a tag's or a commit's label
    since = labelmeta.branch_deleted_at(state)
    log = logs.get("monodex.labels")
    if not since:
        labelmeta.mark_branch_deleted(s.store, state.label_id, now)
        report.marked.append(state.label_id)
        log.info("label.branch_gone", label=state.label_id, branch=state.extra.get(Key.BRANCH))
    elif now - since >= cat.deleted_grace_days * DAY:
        lifecycle.remove_label(s.store, s.paths, cat.name, state.label, by_user=False)
        report.removed.append(state.label_id)
        log.info("label.branch_gone_removed", label=state.label_id, since=since)
