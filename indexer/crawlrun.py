"""From a CLI request to a crawl: open the repository, plan, then run or just count."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from monodex.indexer import crawlpolicy, gitobjects
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.crawl import Crawl, CrawlSettings, CrawlSummary, CrawlTarget, Progress
from monodex.indexer.plan import Plan, plan_commit, plan_working_dir
from monodex.indexer.session import Session

from monodex import known_labels
from monodex.config import Catalog, Config
from monodex.paths import Paths


@dataclass(frozen=True)
class Request:
    catalog: Catalog
    label: str
    commit: str | None  # a revision; None with working_dir
    working_dir: bool = False


def _plan(paths: Paths, req: Request) -> tuple[Plan, str]:
    repo = gitobjects.open_repo(req.catalog.path)
    policy = crawlpolicy.load(repo.workdir, paths)
    if req.working_dir:
        return plan_working_dir(repo.workdir, policy, req.catalog.name), ""
    commit = repo.resolve(req.commit or "HEAD")
    return plan_commit(repo, commit, policy, req.catalog.name), commit


def crawl(s: Session, req: Request, *, progress: Progress | None = None, cancel: Any = None) -> CrawlSummary:
    plan, commit = _plan(s.paths, req)
    target = CrawlTarget(
        catalog=req.catalog.name,
        label=req.label,
        commit_oid=commit,
        source_kind="working-directory" if req.working_dir else "git-commit",
        repo_root=req.catalog.path,
    )
    settings = CrawlSettings(batch_size=s.cfg.embedder.batch_size)
    summary = Crawl(s.store, s.engine, target, settings=settings, progress=progress, cancel=cancel).run(
        plan.files, plan.reader
    )
    summary.skipped = dict(plan.skipped)
    known_labels.add(s.paths.state_dir, req.catalog.name, req.label)  # hooks now track its branch
    return summary


def dry_run(cfg: Config, paths: Paths, req: Request) -> dict[str, Any]:
    """What a crawl would index: no model, no store; chunks are counted for real."""
    from monodex.indexer import chunkers
    from monodex.indexer.embed import spec_for

    plan, _ = _plan(paths, req)
    budget = chunkers.budget_for(spec_for(cfg.embedder.model).max_tokens)
    chunk_count = 0
    by_strategy: Counter[str] = Counter()
    for f, content in plan.reader(plan.files):
        ctx = FileContext(relative_path=f.relative_path, package_name=f.package_name, budget=budget)
        chunks = chunkers.chunk_file(f.strategy, content.decode("utf-8"), ctx)
        if chunks:
            by_strategy[f.strategy] += 1
            chunk_count += len(chunks)
    return {
        "files_to_index": sum(by_strategy.values()),
        "chunks": chunk_count,
        "by_strategy": dict(by_strategy),
        "skipped": dict(plan.skipped),
    }
