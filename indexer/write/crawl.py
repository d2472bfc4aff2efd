"""The full crawl of one label (DESIGN.md "Label refresh"): reuse what is stored, embed the
rest, and only after complete success make the label's membership match the file set."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from monodex.indexer.git.sources import Reader, SourceFile, no_longer_text
from monodex.indexer.members import derive
from monodex.indexer.members import keys as membership
from monodex.indexer.members.derive import Start
from monodex.indexer.points import labelmeta
from monodex.indexer.points import membership as members
from monodex.indexer.points.identity import chunk_point_id, file_id
from monodex.indexer.points.payloads import FileInfo
from monodex.indexer.prepare.produce import DONE, Producer
from monodex.indexer.store.base import Store
from monodex.indexer.write.memory import MemoryWatch
from monodex.indexer.write.pipeline import _DONE, EmbedLoop, Uploader
from monodex.indexer.write.request import Request
from monodex.indexer.write.summary import CrawlSummary

from monodex.errors import Interrupted as Interrupted
from monodex.errors import MonodexError  # re-exported: raised here, caught by callers
from monodex.observe import logs
from monodex.observe.progress import OnProgress
from monodex.schema.payload import Key, MembershipFacts

_SENTINEL_BATCH = 512


class Implementation(Protocol):
    """The parts of identity that come from code: the embedder and the chunkers."""

    embedder_id: str
    dim: int

    budget: int  # the chunk budget in bytes (from the model's token limit)

    def chunker_id(self, strategy: str) -> str: ...

    def embed_documents(self, texts: Sequence[str]) -> Any: ...


@dataclass(frozen=True)
class CrawlSettings:
    batch_size: int = 8
    # Worker processes that prepare files (chunks, payloads, lexical vectors) for a crawl of at
    # least `workers_from` files; 0: the crawl's own thread prepares them (prepare/pool.py).
    workers: int = 0
    workers_from: int = 1000
    # Phase one only (DESIGN.md "Two phases"): chunks without a stored vector for their text are
    # stored pending, and write/fill.py embeds them; False embeds them here, before they are stored.
    two_phase: bool = False
    upload_points: int = 256
    retries: int = 3
    backoff_seconds: float = 0.5


def file_info(target: Request, impl: Implementation, f: SourceFile) -> FileInfo:
    """What one file stores. `catalog`, `label_id` and `source_uri` are provenance of the first
    writer (display only, never read back): identical files of two catalogs share chunks, as in
    monodex 0.4. Everything else follows from the file id's inputs."""
    chunker = impl.chunker_id(f.strategy)
    return FileInfo(
        catalog=target.catalog.name,
        label_id=target.label_id,
        relative_path=f.relative_path,
        package_name=f.package_name,
        blob_id=f.blob_id,
        file_id=file_id(
            embedder_id=impl.embedder_id,
            chunker_id=chunker,
            blob_id=f.blob_id,
            relative_path=f.relative_path,
            package_name=f.package_name,
        ),
        embedder_id=impl.embedder_id,
        chunker_id=chunker,
        source_uri=f"{target.repo_root}/{f.relative_path}",
    )


@dataclass
class _Triage:
    labelled: list[str] = field(default_factory=list)  # complete and already carrying the key
    reusable: list[str] = field(default_factory=list)  # complete (the key, if any, to be added)
    embed: dict[str, list[str]] = field(default_factory=dict)  # file_id -> keys to keep


def triage(
    store: Store, file_ids: Iterable[str], key: str | None, packages: dict[str, str] | None = None
) -> _Triage:
    """Batch sentinel look-ups: which files are stored completely, and with which keys. `key` is
    a working-directory label's own key, which it changes in place; a commit label has none
    (its membership is its base and its changed files: derive.py).

    The package is part of the file id, so a stored file under another package name is damage
    (verify reports it): it is stored again, which is right for every label holding that id."""
    out = _Triage()
    packages = packages or {}
    ids = list(dict.fromkeys(file_ids))
    for i in range(0, len(ids), _SENTINEL_BATCH):
        part = ids[i : i + _SENTINEL_BATCH]
        found = {
            r.payload.get(Key.FILE_ID): r.payload
            for r in store.retrieve([chunk_point_id(fid, 1) for fid in part])
        }
        for fid in part:
            p = found.get(fid)
            labels = members.keys_of(p) if p else []
            same_package = p is not None and p.get(Key.PACKAGE_NAME) == packages.get(
                fid, p.get(Key.PACKAGE_NAME)
            )
            if p is not None and p.get(Key.FILE_COMPLETE) is True and same_package:
                (out.labelled if key is not None and key in labels else out.reusable).append(fid)
            else:
                out.embed[fid] = sorted({*labels, *((key,) if key else ())})
    return out


def _let_go(store: Store, label_id: str, before: members.Held, delta: str) -> None:
    """After a commit label switched: its old base key and changed files where no label holds
    them (members/keys.release), then the delta point it no longer names. The label is complete
    already, so a failure here (or a crash) only leaves garbage to gc."""
    try:
        others = [st for st in labelmeta.list_all(store) if st.label_id != label_id]
        membership.release(store, before, members.of(store, label_id), members.bases(others), delta)
        if delta:  # last: until then it names the files being released (no orphan on a crash)
            store.delete([delta])
    except MonodexError as e:
        logs.get("monodex.crawl").warning("release.failed", label=label_id, delta=delta, error=str(e))


class Crawl:
    """One run: construct, then call run(); progress and clock are injectable."""

    def __init__(
        self,
        store: Store,
        impl: Implementation,
        target: Request,
        *,
        settings: CrawlSettings = CrawlSettings(),
        progress: OnProgress | None = None,
        clock: Callable[[], float] = time.time,
        cancel: threading.Event | None = None,
        watch: MemoryWatch | None = None,
    ) -> None:
        self.store = store
        self.impl = impl
        self.target = target
        self.settings = settings
        self.progress = progress or (lambda a, b, c, d: None)
        self.watch = watch  # memory against crawl.max_memory_mb (write/memory.py)
        self.clock = clock
        self.cancel = cancel or threading.Event()

    def run(
        self,
        files: Sequence[SourceFile],
        reader: Reader,
        *,
        skipped: dict[str, int] | None = None,
        scope: set[str] | None = None,
        base_commit: str = "",
        facts: dict[str, Any] | None = None,
        start: Start | None = None,
        base_facts: str = "",
        rejudge: frozenset[str] = frozenset(),
    ) -> CrawlSummary:
        """A full crawl when scope is None: `files` is the whole label. An incremental refresh
        otherwise: `files` are the new commit's files among the paths in `scope`, and only
        what the label holds at those paths changes (a commit label: compared with `start`'s
        base, derive.py). `facts` (policy, implementation) are recorded in the label metadata
        to decide whether the next refresh may be incremental; `base_facts` names them for a
        base this run writes. Reused files are judged again: all in a full crawl, `rejudge`'s else."""
        t0 = time.monotonic()
        target, store = self.target, self.store
        # "derived": a label starting from another label's base (a new label, or an unrelated move)
        derived = start is not None and start.held.label_id != target.label_id
        mode = "full" if scope is None else "derived" if derived else "incremental"
        summary = CrawlSummary(
            target.catalog.name, target.label, target.commit_oid, mode=mode, skipped=dict(skipped or {})
        )
        store.ensure_collection(dim=self.impl.dim, embedder_id=self.impl.embedder_id)
        if target.source_kind == "git-commit" and scope is not None and start is None:
            prior = labelmeta.read(store, target.label_id)
            start = derive.own(store, prior) if prior is not None else None
            if start is None:
                raise ValueError(
                    f"an incremental refresh of {target.label_id}, which holds nothing to start from"
                )
        extra = {Key.MODE: mode, Key.BASE_COMMIT_OID: base_commit, **(facts or {})}
        self._mark(complete=False, extra=extra)
        infos = {f.relative_path: file_info(target, self.impl, f) for f in files}
        packages = {i.file_id: i.package_name for i in infos.values()}
        commit_label = target.source_kind == "git-commit"
        key = None if commit_label else target.label_id
        plan = triage(store, packages, key, packages)
        judged = files if scope is None else [f for f in files if f.relative_path in rejudge]
        self._judge_reused(plan, judged, infos, reader)
        if key is not None:
            membership.add_label(store, plan.reusable, key)
        todo = [f for f in files if infos[f.relative_path].file_id in plan.embed]
        # A commit label that gets a base of its own (_move) names it now: the files stored here
        # carry its key from their first write, so only the files reused need it written after
        # (writing it into every chunk again was 6 s of rushstack's phase one, and Edge memory).
        new_base = (
            derive.new_key(target.label_id, target.commit_oid)
            if commit_label and (start is None or scope is None)
            else ""
        )
        labels = {f: sorted({*ks, new_base}) for f, ks in plan.embed.items()} if new_base else plan.embed
        stats = self._embed(todo, infos, labels, reader)
        touched = set(plan.labelled) | set(plan.reusable) | stats.stored_file_ids
        if commit_label:
            old = labelmeta.read(store, target.label_id)
            old_delta = str(old.extra.get(Key.MEMBERSHIP_DELTA) or "") if old is not None else ""
            before = members.of(store, target.label_id)
            held = membership.files_at(store, before, scope)
            now_at = {p: i.file_id for p, i in infos.items() if i.file_id in touched}
            moved = self._move(start, scope, now_at, base_facts, new_base, stats.stored_file_ids)
            self._mark(complete=True, extra={**extra, **moved})
            _let_go(
                store, target.label_id, before, old_delta if old_delta != moved[Key.MEMBERSHIP_DELTA] else ""
            )
            removed_files = len(held - touched)
        else:
            if scope is None:
                removed = membership.remove_label(store, target.label_id, keep=touched)
            else:
                held = membership.files_at(store, members.Held(key or "", key or ""), scope)
                removed = membership.remove_from_files(store, sorted(held - touched), target.label_id)
            self._mark(complete=True, extra=extra)
            removed_files = removed.files
        after = members.of(store, target.label_id)
        # What the label holds: a full crawl's files less those that proved empty, binary or
        # generated when read (`files` counted them: 260 files, then 255 for the same commit).
        summary.files_total = len(touched) if scope is None else membership.label_files(store, after)
        # A derived label inherits its base's files unread: they count as reused.
        reused = len(plan.labelled) + len(plan.reusable)
        summary.files_reused = summary.files_total - stats.files_stored if derived else reused
        summary.files_unchanged = max(0, summary.files_total - summary.files_reused - stats.files_stored)
        summary.files_embedded = stats.files_stored
        summary.files_removed = removed_files
        summary.chunks_embedded = stats.chunks_embedded
        summary.chunks_reused = stats.chunks_reused
        summary.chunks_pending = stats.chunks_pending
        summary.upload_requests = stats.upload_requests
        summary.seconds = summary.searchable_seconds = time.monotonic() - t0
        return summary

    def _judge_reused(
        self, plan: _Triage, files: Sequence[SourceFile], infos: dict[str, FileInfo], reader: Reader
    ) -> None:
        """Drop from `plan` the stored files among `files` the content rules now leave out (a page
        a .gitattributes line no longer waives; rules newer than the label's), read once each."""
        reused = {*plan.labelled, *plan.reusable}
        kept = [f for f in files if infos[f.relative_path].file_id in reused]
        if not kept:
            return
        gone = {infos[path].file_id for path in no_longer_text(reader, kept)}
        plan.labelled = [fid for fid in plan.labelled if fid not in gone]
        plan.reusable = [fid for fid in plan.reusable if fid not in gone]

    def _move(
        self,
        start: Start | None,
        scope: set[str] | None,
        now_at: dict[str, str],
        base_facts: str,
        new_base: str,
        stored: set[str],
    ) -> MembershipFacts:
        """The commit label's new membership (derive.py), its delta point written: the metadata
        fields that switch the label to it in one upsert. `new_base`: the key of the base of its
        own it gets, which the files in `stored` carry already."""
        t, store = self.target, self.store
        if start is None or scope is None:
            ids = list(now_at.values())
            key, n = derive.own_base(store, t.label_id, t.commit_oid, ids, key=new_base, written=stored)
            return derive.fields(key, t.commit_oid, n, base_facts, "", 0)
        changed = derive.compare(store, start, scope, now_at)
        if len(changed) > derive.limit(start.base_files):
            ids = derive.files_of(store, start, changed)
            key, n = derive.own_base(store, t.label_id, t.commit_oid, ids)
            return derive.fields(key, t.commit_oid, n, base_facts or start.base_facts, "", 0)
        delta = ""
        if changed:
            stamp = f"{time.time_ns():x}"
            store.upsert([members.delta_point(t.catalog.name, t.label_id, stamp, changed, self.impl.dim)])
            delta = members.delta_point_id(t.label_id, stamp)
        base = start.held
        return derive.fields(
            base.base, start.base_commit, start.base_files, start.base_facts, delta, len(changed)
        )

    def _mark(self, *, complete: bool, extra: dict[str, Any]) -> None:
        t = self.target
        prior = labelmeta.read(self.store, t.label_id)
        if prior is not None and not complete:  # the label keeps its membership until complete
            extra = {**{k: prior.extra[k] for k in members.FIELDS if k in prior.extra}, **extra}
        # Until complete, keep claiming only what was fully indexed before; a label that never
        # was complete names the commit it is being crawled at (not "", which means a working dir).
        held = prior is not None and bool(prior.commit_oid) and not labelmeta.commit_is_target(prior)
        commit = prior.commit_oid if prior is not None and held and not complete else t.commit_oid
        extra = {
            **extra,
            Key.TARGET_COMMIT_OID: t.commit_oid,
            Key.COMMIT_IS_TARGET: not complete and not held and bool(commit),
        }
        labelmeta.write(
            self.store,
            catalog=t.catalog.name,
            label=t.label,
            dim=self.impl.dim,
            commit_oid=commit,
            source_kind=t.source_kind,
            complete=complete,
            now=self.clock(),
            extra=extra,
        )

    def _embed(
        self,
        todo: Sequence[SourceFile],
        infos: dict[str, FileInfo],
        labels: dict[str, list[str]],
        reader: Reader,
    ) -> Any:
        s = self.settings
        watch = self.watch
        if watch is not None:
            watch.expected_bytes = sum(getattr(f, "size", None) or 0 for f in todo)
        uploader = Uploader(
            self.store,
            batch_points=s.upload_points,
            retries=s.retries,
            backoff=s.backoff_seconds,
            watch=watch,
        )
        uploader.start()
        loop = EmbedLoop(
            self.impl,
            uploader,
            batch_size=s.batch_size,
            on_progress=lambda f, c: self.progress(f, len(todo), c, "index"),
            inline=not s.two_phase,
        )
        producer = Producer(
            self.store,
            embedder_id=self.impl.embedder_id,
            budget=self.impl.budget,
            workers=s.workers if len(todo) >= s.workers_from else 0,
            lookup=not s.two_phase,
            files=todo,
            infos=infos,
            labels=labels,
            reader=reader,
            cancelled=self.cancel.is_set,
            on_workers=(lambda pids: setattr(watch, "workers", pids))
            if watch is not None
            else (lambda pids: None),
        )
        producer.start()
        try:
            while (item := producer.jobs.get()) is not DONE:
                if isinstance(item, BaseException):
                    raise item
                if self.cancel.is_set():  # the producer may be far ahead: stop at this file
                    raise Interrupted("the crawl was stopped", "run it again to resume")
                loop.add(item)
            loop.finish()
        finally:
            producer.stop.set()
            uploader.inbox.put(_DONE)  # files fully embedded so far still get stored
            uploader.join()
            producer.join()  # its worker processes end with it
        if uploader.error is not None:
            raise uploader.error
        uploader.stats.chunks_embedded = loop.chunks
        uploader.stats.chunks_reused = loop.reused
        uploader.stats.chunks_pending = loop.pending
        return uploader.stats
