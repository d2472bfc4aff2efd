"""From a request to a crawl: open the repository, plan, then run or just count."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monodex.indexer import chunkers
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.git import gitobjects
from monodex.indexer.git.gitobjects import GitRepo
from monodex.indexer.git.plan import Plan, commit_attributes
from monodex.indexer.git.source import Source, open_source
from monodex.indexer.history import catchup
from monodex.indexer.history.cochanges import db_path
from monodex.indexer.members import derive
from monodex.indexer.points import filters, identity, labelmeta, membership
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.policy import generated
from monodex.indexer.session import Session
from monodex.indexer.write import fill, policychange
from monodex.indexer.write.crawl import Crawl, CrawlSettings, file_info
from monodex.indexer.write.memory import MemoryWatch
from monodex.indexer.write.request import Request as Request  # crawlrun.crawl(s, crawlrun.Request(...))
from monodex.indexer.write.summary import CrawlSummary

from monodex.disk import jsonfile
from monodex.disk.paths import Paths
from monodex.git import cli as gitcli
from monodex.labels import known_labels
from monodex.observe import crawlstate, logs
from monodex.observe.progress import OnProgress
from monodex.schema.crawl import DryRunAnswer, PlannedFile
from monodex.schema.payload import Key
from monodex.schema.status import RunningCrawl
from monodex.settings.config import Catalog, Config

if TYPE_CHECKING:
    from monodex.indexer.engine import Engine


def implementation_id(impl: Engine) -> str:
    """Everything in code that shapes the stored chunks: a change means a full crawl."""
    chunker_ids = (impl.chunker_id(name) for name in sorted(chunkers.CHUNKERS))
    return ";".join([impl.embedder_id, *chunker_ids, identity.SCHEME])


def incremental_bases(
    state: LabelState | None, facts: dict[str, Any], repo: GitRepo, commit: str
) -> list[str]:
    """The commits to diff from for an incremental refresh, or [] when it must be a full crawl:
    no metadata, another policy or implementation, an interrupted full crawl, or a base that is
    not an ancestor any more (the label moved to an unrelated branch) or is gone."""
    if state is None or state.source_kind != "git-commit" or not state.commit_oid:
        return []
    if labelmeta.commit_is_target(state):  # an unfinished first crawl: nothing to diff from
        return []
    if any(state.extra.get(k) != v for k, v in facts.items()):
        return []
    bases = [state.commit_oid]
    if not state.crawl_complete:
        if state.extra.get(Key.FOLLOWED_CHANGE):  # an interrupted refresh after a policy change: start over
            return []
        if (
            state.extra.get(Key.MODE) != "incremental"
            or state.extra.get(Key.BASE_COMMIT_OID) != state.commit_oid
        ):
            return []
        # finish what interrupted refreshes had started: every path they may have touched
        pending = state.extra.get(Key.PENDING_COMMIT_OIDS) or [state.extra.get(Key.TARGET_COMMIT_OID, "")]
        bases.extend(str(c) for c in pending)
    if not all(repo.has_commit(b) for b in bases) or not repo.is_ancestor(state.commit_oid, commit):
        return []
    return bases


# Recorded while an incremental refresh also covers the files a policy or chunker change touched.


def after_change(
    state: LabelState | None, facts: dict[str, Any], source: Source, commit: str, names: dict[str, str]
) -> tuple[list[str], set[str]]:
    """(bases, paths to add) for a refresh after only the policy or chunkers changed, following
    the change file by file (policychange.py); ([], set()) for a full crawl."""
    if state is None:
        return [], set()
    differing = {k for k, v in facts.items() if state.extra.get(k) != v}
    if not differing or not differing <= set(policychange.COMPARED):
        return [], set()
    same = {k: v for k, v in facts.items() if k not in differing}
    bases = incremental_bases(state, same, source.repo, commit)
    if not bases:
        return [], set()
    entries = source.repo.tree_entries(commit)
    widen = policychange.follow(
        state.extra,
        policy=source.policy,
        implementation=facts[Key.IMPLEMENTATION],
        names=names,
        paths=[e.path for e in entries if e.kind == "file"],
        attrs=commit_attributes(source.repo, entries),
    )
    return (bases, widen) if widen is not None else ([], set())


def _read_cache(path: Path) -> dict[str, list[Any]]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def working_dir_scope(
    s: Session, state: LabelState | None, facts: dict[str, Any], target: Request, plan: Plan
) -> set[str] | None:
    """Paths whose file differs between the disk and the label (content, package, presence),
    or None for a full crawl: no complete working-directory label made the same way."""
    if state is None or state.source_kind != "working-directory" or not state.crawl_complete:
        return None
    if any(state.extra.get(k) != v for k, v in facts.items()):
        return None
    stored: dict[str, tuple[str, str]] = {}
    keys = (Key.RELATIVE_PATH, Key.FILE_ID, Key.PACKAGE_NAME)
    own = membership.Held(target.label_id, target.label_id)  # a working-directory label's own key
    for rec in s.store.scroll(filters.label_chunks(own), payload_keys=keys):
        stored[str(rec.payload[Key.RELATIVE_PATH])] = (
            str(rec.payload[Key.FILE_ID]),
            str(rec.payload[Key.PACKAGE_NAME]),
        )
    wanted = {}
    for f in plan.files:
        info = file_info(target, s.engine, f)
        wanted[f.relative_path] = (info.file_id, info.package_name)
    return {p for p in stored.keys() | wanted.keys() if stored.get(p) != wanted.get(p)}


def check_commit(catalog: Catalog, commit: str | None) -> None:
    """UsageError when the revision names no commit: cheap (milliseconds), so a runner refuses
    a bad ref at once instead of after the write it would have waited for."""
    with gitobjects.open_repo(catalog.path) as repo:
        repo.resolve(commit or "HEAD")


def crawl(
    s: Session,
    req: Request,
    *,
    progress: OnProgress | None = None,
    cancel: Any = None,
    dense: str = "fill",
) -> CrawlSummary:
    """Phase one (the label reflects the commit, searchable), then with dense="fill" phase two
    for this label in the same call; dense="later" leaves phase two to the runner's fill job.
    While it runs, `monodex status` shows its progress and memory (write/memory.py)."""
    cfg = s.config()
    facts: RunningCrawl = {"catalog": req.catalog.name, "label": req.label}
    watch = MemoryWatch(
        cfg.crawl.max_memory_mb, state_file=crawlstate.new_file(s.paths.crawls_dir), facts=facts
    )
    # Listed before the index is opened: a status that finds no crawl opens the index itself, and
    # would wait for the lock this crawl holds while it plans (8 s under load, then nothing shown).
    watch.report(0, 0, 0, crawlstate.PLANNING)

    def reported(files: int, total: int, chunks: int, phase: str = "index") -> None:
        watch.report(files, total, chunks, phase)
        if progress is not None:
            progress(files, total, chunks, phase)

    try:
        return _crawl(s, req, cfg, watch, progress=reported, cancel=cancel, dense=dense)
    finally:
        watch.close()


def _crawl(
    s: Session,
    req: Request,
    cfg: Config,
    watch: MemoryWatch,
    *,
    progress: OnProgress,
    cancel: Any,
    dense: str,
) -> CrawlSummary:
    settings = CrawlSettings(
        batch_size=s.cfg.embedder.batch_size,
        two_phase=cfg.embedder.two_phase,
        workers=cfg.crawl.worker_count,
    )
    source = open_source(req.catalog, s.paths)
    facts = {
        Key.POLICY_FINGERPRINT: source.policy.fingerprint,
        Key.IMPLEMENTATION: implementation_id(s.engine),
        Key.POINT_FORMAT: chunkers.POINT_FORMAT,
        Key.CONTENT_RULES: generated.RULES,
    }
    bases: list[str] = []
    widen: set[str] = set()  # paths a policy or chunker change touches (after_change)
    rejudge: frozenset[str] = frozenset()  # stored files a refresh reads and judges again
    scope: set[str] | None = None
    start: derive.Start | None = None  # a commit label's membership to start from (derive.py)
    if req.working_dir:
        cache_file = s.paths.state_dir / "worktree" / f"{req.catalog.name}.json"
        cache = _read_cache(cache_file)
        plan, target = source.working_dir(cache), req.at("")
        jsonfile.write_atomic(cache_file, cache)
        if not req.full and s.store.info() is not None:
            state = labelmeta.read(s.store, target.label_id)
            scope = working_dir_scope(s, state, facts, target, plan)
    else:
        target = req.at(source.resolve(req.commit))
        if not req.full and s.store.info() is not None:
            state = labelmeta.read(s.store, target.label_id)
            bases = incremental_bases(state, facts, source.repo, target.commit_oid)
            if not bases:
                bases, widen = after_change(state, facts, source, target.commit_oid, chunkers.id_names())
            start = derive.own(s.store, state) if bases and state is not None else None
            if start is None:  # a new label, or one incremental cannot follow: the nearest base
                bases, widen = [], set()
                indexed, at = source.policy.should_crawl, target.commit_oid
                near = derive.nearest(s.store, req.catalog.name, facts, source.repo, at, indexed)
                if near is not None:
                    start, bases = near.start, [near.since]
        if bases:
            delta = source.delta(bases, target.commit_oid, widen)
            plan, scope, rejudge = delta.plan, delta.scope, delta.widened
        else:
            plan = source.at_commit(target.commit_oid)
    # Recorded, not compared: after a model change, how to load this label's model again to
    # answer its searches until the new model's vectors are complete (Session.previous).
    recorded = {**facts, Key.MODEL_SOURCE: s.cfg.embedder.model, Key.POLICY: source.policy.canonical}
    run = Crawl(s.store, s.engine, target, settings=settings, progress=progress, cancel=cancel, watch=watch)
    if bases:
        pending = {**recorded, Key.PENDING_COMMIT_OIDS: sorted({*bases[1:], target.commit_oid})}
        if widen:
            pending[Key.FOLLOWED_CHANGE] = True
        summary = run.run(
            plan.files,
            plan.reader,
            scope=scope,
            base_commit=bases[0],
            facts=pending,
            start=start,
            base_facts=derive.facts_key(facts),
            rejudge=rejudge,
        )
    elif scope is not None:  # a working-directory label: only the files that differ
        files = [f for f in plan.files if f.relative_path in scope]
        summary = run.run(files, plan.reader, scope=scope, facts=recorded)
    else:
        summary = run.run(plan.files, plan.reader, facts=recorded, base_facts=derive.facts_key(facts))
    summary.skipped = dict(plan.skipped)
    if not req.working_dir:
        count_history(s, source, target.commit_oid)
    known_labels.add(s.paths.state_dir, req.catalog.name, req.label)  # hooks now track its branch
    if dense == "fill":
        fill_label(s, summary, target.label_id, progress=progress, cancel=cancel, watch=watch)
    else:
        summary.chunks_pending = fill.pending(s.store, target.label_id)
    return summary


def count_history(s: Session, source: Source, commit: str) -> None:
    """The commits up to `commit` counted for the search's co-change signal. Never fails a
    refresh: without the counts the search only loses that signal."""
    try:
        added = catchup.update(
            db_path(s.paths.state_dir, source.catalog.name),
            source.catalog.path,
            commit,
            source.policy.should_crawl,
            source.policy.fingerprint,
        )
    except (*gitcli.Failed, sqlite3.Error) as e:
        logs.get("monodex.history").warning("history.not_counted", catalog=source.catalog.name, error=str(e))
        return
    if added:
        # debug: routine bookkeeping after every refresh; at INFO a command's stderr repeated it
        logs.get("monodex.history").debug("history.counted", catalog=source.catalog.name, commits=added)


def fill_label(
    s: Session,
    summary: CrawlSummary,
    label_id: str,
    *,
    progress: OnProgress | None,
    cancel: Any,
    watch: MemoryWatch | None = None,
) -> None:
    """Phase two in this process; a stop leaves the rest pending (the label stays searchable).
    `watch`: the crawl's memory ceiling, which the fill's writes respect as phase one's do."""
    report = fill.fill(
        s.store,
        s.engine,
        label_id,
        should_stop=cancel.is_set if cancel is not None else (lambda: False),
        progress=(lambda done, total: progress(done, total, done, "dense")) if progress else None,
        watch=watch.phase_two() if watch is not None else None,
    )
    summary.chunks_embedded += report.embedded
    summary.chunks_pending = report.pending_after
    summary.seconds += report.seconds
    summary.dense = report.as_json()


def dry_run(cfg: Config, paths: Paths, req: Request) -> DryRunAnswer:
    """What a crawl would index: no model, no store; chunks are counted for real."""
    from monodex.indexer.embed.spec import spec_for

    source = open_source(req.catalog, paths)
    plan = source.working_dir() if req.working_dir else source.at_commit(source.resolve(req.commit))
    budget = chunkers.budget_for(spec_for(cfg.embedder.model).max_tokens)
    files: list[PlannedFile] = []
    for f, content in plan.reader(plan.files):
        ctx = FileContext(relative_path=f.relative_path, package_name=f.package_name, budget=budget)
        text = content.decode("utf-8")
        if chunks := chunkers.chunk_file(f.strategy, text, ctx):
            files.append({"path": f.relative_path, "strategy": f.strategy, "chunks": len(chunks)})
            if chosen := chunkers.chosen(f.strategy, text, f.relative_path):  # by a `#!` line, C++
                files[-1]["chunked_as"] = chosen
    paths_skipped = getattr(plan.skipped, "paths", [])
    return {
        "files_to_index": len(files),
        "chunks": sum(f["chunks"] for f in files),
        "by_strategy": dict(Counter(f["strategy"] for f in files)),
        "skipped": dict(plan.skipped),
        "files": sorted(files, key=lambda f: f["path"]),
        # reasons decided while walking a work tree (e.g. unreadable) are counted, not listed
        "skipped_files": [{"path": p, "reason": r} for p, r in sorted(paths_skipped)],
        "policy": {"source": source.policy.source, "roots": list(source.policy.roots)},
    }
