"""A commit label as a base plus what changed (points/membership.py): where a refresh starts from,
and the membership it ends with.

- A label that moves starts from its own membership: only the paths that changed are compared
  with its base (O(change)).
- A new label, or one that moved where an incremental refresh cannot follow (an unrelated
  commit, a force-push), starts from the nearest base any label of the catalog stands on: the
  base whose commit differs from the target in the fewest paths.
- When the changed paths outgrow a share of the base (`limit`), or nothing is near, the label
  gets a base of its own: its key written to every chunk of its files, once (O(tree)).
- A base outlives a change of crawl policy or chunkers: a label refreshed after one keeps its
  base and holds the files the change touched in its delta (write/policychange.py). A new label
  starts from such a label's whole membership, its delta included, and compares the paths that
  changed since that label's commit: the base alone no longer holds what the label's policy
  indexes (the first new branch after an upgrade re-read a 100,000-file tree, 188 s).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from monodex.indexer.git.gitobjects import GitRepo
from monodex.indexer.members import keys
from monodex.indexer.points import labelmeta, membership
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.points.membership import Held
from monodex.indexer.store.base import Store

from monodex.schema.payload import Key, MembershipFacts

# What a label's chunks depend on besides content (crawlrun.crawl compares them to go incremental).
FACT_NAMES = (Key.POLICY_FINGERPRINT, Key.IMPLEMENTATION, Key.POINT_FORMAT)
# Candidate bases compared by tree diff for a new label (each diff costs what differs).
_CANDIDATES = 8


def limit(base_files: int) -> int:
    """Changed paths a label may hold over its base before it gets its own. Each changed path is
    a term of every query's filter: rushstack's dense top-50 took 2 ms with none, 7 ms with 300,
    10 ms with 600, 21 ms with 1,200 (docs/benchmarks.md "Many branches")."""
    return max(256, base_files // 8)


def facts_key(facts: Mapping[str, Any]) -> str:
    return json.dumps(dict(facts), sort_keys=True)


@dataclass(frozen=True)
class Start:
    """Where a commit label's new membership is computed from."""

    held: Held  # the base, and the changes kept from before (a label's own move)
    base_commit: str
    base_files: int
    base_facts: str


def _start_of(store: Store, state: LabelState, fact_names: Sequence[str]) -> Start | None:
    held = membership.from_metadata(state.label_id, {**state.extra}, store)
    commit = str(state.extra.get(Key.MEMBERSHIP_BASE_COMMIT) or "")
    if not commit:  # a label from before issue 25: its key holds its commit
        if not state.crawl_complete or labelmeta.commit_is_target(state):
            return None
        commit = state.commit_oid
    files = state.extra.get(Key.MEMBERSHIP_BASE_FILES)
    base_files = int(files) if isinstance(files, int) else keys.label_files(store, Held(held.base, held.base))
    recorded = facts_key({k: state.extra.get(k) for k in fact_names})  # before issue 25: the label's
    base_facts = str(state.extra.get(Key.MEMBERSHIP_BASE_FACTS) or recorded)
    return Start(held, commit, base_files, base_facts)


def own(store: Store, state: LabelState, fact_names: Sequence[str] = FACT_NAMES) -> Start | None:
    """A label's own membership, for an incremental refresh from its recorded commit."""
    return _start_of(store, state, fact_names)


@dataclass(frozen=True)
class Near:
    """Where a new label starts: `start` (nothing of its own changed yet), and the commit whose
    changes to the target it compares (`since`: the base's, or the label's whose delta it takes)."""

    start: Start
    since: str
    differ: int  # paths the new label will hold over the base, about


def nearest(
    store: Store,
    catalog: str,
    facts: Mapping[str, Any],
    repo: GitRepo,
    target: str,
    indexed: Callable[[str], bool] = lambda _: True,
) -> Near | None:
    """The base nearest `target` among the catalog's complete commit labels built the same way;
    None when none is near. Only paths the policy indexes (`indexed`) count: a release commit
    that deletes 250 change files (`common/changes/**/*.json`) changes no label of a policy that
    leaves them out. A base crawled under other facts (kept across a policy change) is taken
    with its label's delta, from that label's commit."""
    wanted = facts_key(facts)
    seen: dict[str, Near] = {}
    states = sorted(labelmeta.list_all(store, catalog), key=lambda st: -st.updated_at_unix_secs)
    for st in states:
        if st.source_kind != "git-commit" or not st.crawl_complete:
            continue
        if facts_key({k: st.extra.get(k) for k in facts}) != wanted:
            continue
        base = str(st.extra.get(Key.MEMBERSHIP_BASE) or st.label_id)
        # labels on a base of other facts differ from it each by its own delta: one candidate each
        if str(st.extra.get(Key.MEMBERSHIP_BASE_FACTS) or wanted) != wanted:
            base = st.label_id
        if base in seen or len(seen) >= _CANDIDATES:
            continue
        start = _start_of(store, st, tuple(facts))
        if start is None or not repo.has_commit(start.base_commit):
            continue
        if start.base_facts == wanted:
            bare = Start(Held("", start.held.base), start.base_commit, start.base_files, wanted)
            seen[base] = Near(bare, start.base_commit, 0)
        elif repo.has_commit(st.commit_oid):  # what the change touched is in the label's delta
            held = Held("", start.held.base, start.held.changed)
            taken = Start(held, start.base_commit, start.base_files, start.base_facts)
            seen[base] = Near(taken, st.commit_oid, len(held.changed))
    best: Near | None = None
    for near in seen.values():
        start = near.start
        most = limit(start.base_files) if best is None else min(limit(start.base_files), best.differ - 1)
        if near.differ > most:
            continue
        paths = repo.changed_paths(near.since, target, counted=indexed, stop_after=most - near.differ)
        if near.differ + len(paths) <= most:
            best = Near(start, near.since, near.differ + len(paths))
    return best


def new_key(label_id: str, commit: str) -> str:
    """A base key never used before: a base is never changed once a label may stand on it."""
    return f"{label_id}@{commit[:12]}.{time.time_ns():x}"


def compare(store: Store, start: Start, scope: set[str], now_at: Mapping[str, str]) -> dict[str, str]:
    """The label's changed paths after a refresh: those kept from before, with every path in
    scope compared again with the base (`now_at`: path -> the file id the label holds now)."""
    changed = dict(start.held.changed)
    base_at = keys.files_by_path(store, start.held.base, scope)
    for path in scope:
        fid = now_at.get(path, "")
        if base_at.get(path, set()) == ({fid} if fid else set()):
            changed.pop(path, None)
        else:
            changed[path] = fid
    return changed


def own_base(
    store: Store,
    label_id: str,
    commit: str,
    file_ids: Sequence[str],
    *,
    key: str = "",
    written: Collection[str] = (),
) -> tuple[str, int]:
    """A new base holding exactly these files: (its key, how many files). `key`: a new_key made
    before the files in `written` were stored with it in every chunk; only the others get it here.
    (A crash before the label names the base leaves a key no label stands on: gc strips it.)"""
    key = key or new_key(label_id, commit)
    ids = sorted(set(file_ids))
    done = set(written)
    keys.add_label(store, [f for f in ids if f not in done], key)
    return key, len(ids)


def files_of(store: Store, start: Start, changed: Mapping[str, str]) -> list[str]:
    """Every file id a label standing on `start`'s base with `changed` holds."""
    held = [
        f for p, ids in keys.files_by_path(store, start.held.base).items() if p not in changed for f in ids
    ]
    return held + [f for f in changed.values() if f]


def fields(
    base: str, commit: str, base_files: int, base_facts: str, delta: str, changed: int
) -> MembershipFacts:
    """The label metadata fields that describe its membership."""
    return {
        Key.MEMBERSHIP_BASE: base,
        Key.MEMBERSHIP_BASE_COMMIT: commit,
        Key.MEMBERSHIP_BASE_FILES: base_files,
        Key.MEMBERSHIP_BASE_FACTS: base_facts,
        Key.MEMBERSHIP_DELTA: delta,
        Key.MEMBERSHIP_CHANGED: changed,
    }
