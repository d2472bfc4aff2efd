"""Verification: recompute from git alone what a label should hold and compare with the store.

Drift kinds (counts of files, or of points for orphans):
- `missing_files`: the commit has the file (and it yields chunks), the label has no complete copy;
- `stale_memberships`: the label holds a file the commit does not have;
- `incomplete_sentinels`: the label holds the file but its sentinel is missing or not complete;
- `chunk_count_mismatches`: the sentinel is complete but the label's chunks are not 1..chunk_count;
- `package_mismatches`: the file is stored under another package name than the commit gives it;
- `orphan_chunks`: points of the catalog that no label uses (GC's job; counted, repaired too);
- `incomplete_label`: the label's last refresh did not finish (checked against the commit that
  refresh was crawling, which repair then finishes);
- `branch_moved`: the branch the label tracks points elsewhere now (a `reset`, `branch -f`,
  `update-ref` or fetch into the branch: moves no hook sees). Repair moves the label there.

`ok` is True (no drift), False (drift, or the label could not be checked: `problem` and `hint`
say why, e.g. its catalog is no longer registered) or None (`skipped`: a working-directory
label, which has no commit to compare with). Only False is a failure.

Repair never deletes what another label still needs: broken files are marked incomplete (their
labels kept) so a full crawl of the label stores them again, then orphans are collected.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.git.source import open_source
from monodex.indexer.points import filters, labelmeta, membership
from monodex.indexer.points.identity import chunk_point_id
from monodex.indexer.points.labelmeta import LabelState, require_label
from monodex.indexer.session import Session
from monodex.indexer.store.base import Match
from monodex.indexer.upkeep import gc
from monodex.indexer.write import crawlrun, fill
from monodex.indexer.write.crawl import file_info
from monodex.indexer.write.request import Request

from monodex.errors import MonodexError
from monodex.git import refs
from monodex.labels import branchlabels
from monodex.schema.labels import Verified, VerifyAnswer
from monodex.schema.payload import Key
from monodex.settings.config import Catalog

KINDS = (
    "missing_files",
    "stale_memberships",
    "incomplete_sentinels",
    "chunk_count_mismatches",
    "package_mismatches",
    "orphan_chunks",
    "incomplete_label",
    "branch_moved",
)
_KEYS = (
    Key.FILE_ID,
    Key.CHUNK_ORDINAL,
    Key.CHUNK_COUNT,
    Key.FILE_COMPLETE,
    Key.PACKAGE_NAME,
    Key.RELATIVE_PATH,
)


@dataclass
class Finding:
    catalog: str
    label: str
    drift: Counter[str] = field(default_factory=Counter)
    broken_files: list[str] = field(default_factory=list)  # to store again
    dense_pending: int = 0  # chunks waiting for their vector (phase two): not drift
    branch_commit: str = ""  # where the label's branch points now, when that is elsewhere
    skipped: str = ""  # not checkable, not a failure
    problem: str = ""  # could not be checked: a failure
    hint: str = ""

    @property
    def ok(self) -> bool | None:
        if self.problem:
            return False
        return None if self.skipped else not any(self.drift.values())

    def as_json(self) -> Verified:
        out = Verified(
            catalog=self.catalog,
            label=self.label,
            ok=self.ok,
            drift={k: self.drift.get(k, 0) for k in KINDS},
            dense_pending=self.dense_pending,
        )
        if self.branch_commit:
            out["branch_commit"] = self.branch_commit
        if self.skipped:
            out["skipped"] = self.skipped
        if self.problem:
            out["problem"], out["hint"] = self.problem, self.hint
        return out


def check(s: Session, state: LabelState, catalog: Catalog) -> Finding:
    found = Finding(state.catalog, state.label)
    if state.source_kind == "working-directory":
        found.skipped = "a working-directory label: re-run 'monodex crawl --working-dir' to refresh it"
        return found
    commit = labelmeta.target_commit(state)
    if not commit:  # metadata of an interrupted first crawl written before commits were recorded
        found.problem = "the label records no commit (an interrupted first crawl)"
        crawl = f"monodex crawl --catalog {state.catalog} --label {state.label} --commit HEAD"
        found.hint = f"crawl it again: '{crawl}'"
        return found
    moved = _moved_to(s, state, catalog, commit)
    if moved:
        found.drift["branch_moved"], found.branch_commit = 1, moved
    store, engine = s.store, s.engine
    plan = open_source(catalog, s.paths).at_commit(commit)
    target = Request(catalog, state.label, commit)
    infos = [(f, file_info(target, engine, f)) for f in plan.files]
    expected = {i.file_id: (f, i) for f, i in infos}
    stored: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in store.scroll(filters.label_chunks(membership.of(store, state.label_id)), payload_keys=_KEYS):
        stored[str(rec.payload.get(Key.FILE_ID))].append(rec.payload)
    found.drift["incomplete_label"] = 0 if state.crawl_complete else 1
    found.drift["stale_memberships"] = len(stored.keys() - expected.keys())
    absent = [fid for fid in expected if fid not in stored]
    for fid in expected.keys() & stored.keys():
        points = stored[fid]
        sentinel = next((p for p in points if p.get(Key.CHUNK_ORDINAL) == 1), None)
        if sentinel is None or sentinel.get(Key.FILE_COMPLETE) is not True:
            found.drift["incomplete_sentinels"] += 1
        elif sorted(int(p[Key.CHUNK_ORDINAL]) for p in points) != list(
            range(1, int(sentinel[Key.CHUNK_COUNT]) + 1)
        ):
            found.drift["chunk_count_mismatches"] += 1
        elif sentinel.get(Key.PACKAGE_NAME) != expected[fid][1].package_name:
            found.drift["package_mismatches"] += 1
        else:
            continue
        found.broken_files.append(fid)
    # A planned file may rightly be absent: binary, not UTF-8, or no chunks at all.
    wanted = [expected[fid][0] for fid in absent]
    for f, content in plan.reader(wanted):
        ctx = FileContext(relative_path=f.relative_path, package_name=f.package_name, budget=0)
        if engine.chunk(f.strategy, content.decode("utf-8"), ctx):
            found.drift["missing_files"] += 1
    found.dense_pending = fill.pending(store, state.label_id)
    orphans = filters.catalog_chunks(catalog.name, membership.held_by_none(membership.changed_files(store)))
    found.drift["orphan_chunks"] = store.count(orphans)
    return found


def _moved_to(s: Session, state: LabelState, catalog: Catalog, commit: str) -> str:
    """The commit the label's branch points at now when that is not `commit`, else ""."""
    heads = refs.branch_heads(catalog.path)
    owners = branchlabels.load(s.paths.state_dir, catalog.name, heads or {})
    found = owners.tip(state.label, heads) if heads is not None else None
    return found[1] if found is not None and found[1] != commit else ""


def repair(s: Session, finding: Finding, catalog: Catalog, commit: str) -> None:
    """Broken files stored again and the label crawled to its commit, or to where its branch
    points now when it moved (incremental when that was the only drift)."""
    store = s.store
    for fid in finding.broken_files:
        ids = [r.id for r in store.scroll(filters.chunks(Match(Key.FILE_ID, fid)))]
        sentinel = chunk_point_id(fid, 1)
        rest = [i for i in ids if i != sentinel]
        if sentinel in ids:  # keeps its labels: the crawl stores the file again for all of them
            store.set_payload([sentinel], {Key.FILE_COMPLETE: False})
        if rest:
            store.delete(rest)
    full = any(n for kind, n in finding.drift.items() if kind != "branch_moved")
    target = Request(catalog, finding.label, finding.branch_commit or commit, full=full)
    # in the runner its fill job adds the vectors (a pending chunk is not drift); here, now
    crawlrun.crawl(s, target, dense="later" if s.wake else "fill")
    gc.collect(store, catalog.name, dry_run=False, now=time.time())


def failures(rows: list[Verified]) -> list[Verified]:
    """Rows with `ok: false` that no repair fixed: any one is a failed verification (exit 1);
    `ok: null` (not checkable) is not."""
    return [r for r in rows if r["ok"] is False and not r.get("ok_after_repair")]


def _unregistered(st: LabelState) -> Finding:
    return Finding(
        st.catalog,
        st.label,
        problem=f"catalog {st.catalog!r} is not registered any more, so the label cannot be checked",
        hint=(
            f"remove the label: 'monodex labels rm --catalog {st.catalog} --label {st.label}', or "
            f"register the repository again: 'monodex catalog add {st.catalog} /path/to/repo'"
        ),
    )


def verify(
    s: Session,
    *,
    catalog: str | None = None,
    label: str | None = None,
    repair_drift: bool = False,
    should_stop: Callable[[], bool] = lambda: False,
) -> VerifyAnswer:
    cfg = s.config()
    if catalog:
        cfg.catalog(catalog)
    if s.store.info() is None:
        return {"labels": []}
    states = [st for st in labelmeta.list_all(s.store, catalog) if label is None or st.label == label]
    if label is not None and not states:
        require_label(s.store, catalog or "", label)
    rows = []
    for st in states:
        if should_stop():
            break
        cat = cfg.catalogs.get(st.catalog)
        if cat is None:
            rows.append(_unregistered(st).as_json())
            continue
        try:
            finding = check(s, st, cat)
        except MonodexError as exc:  # one unreadable label (repository moved, commit gone) only
            finding = Finding(st.catalog, st.label, problem=exc.problem, hint=exc.hint)
        row = finding.as_json()
        if repair_drift and finding.ok is False and not finding.problem:
            repair(s, finding, cat, labelmeta.target_commit(st))
            after = check(s, labelmeta.read(s.store, st.label_id) or st, cat)
            row["repaired"] = True
            row["ok_after_repair"] = after.ok
        rows.append(row)
    return {"labels": rows}
