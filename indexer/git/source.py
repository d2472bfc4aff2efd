"""A catalog's repository opened with its crawl policy: the one way from a catalog to a plan
(crawl, dry run and verify all start here)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from monodex.indexer.git import gitobjects
from monodex.indexer.git.delta import Delta, plan_delta
from monodex.indexer.git.gitobjects import GitRepo
from monodex.indexer.git.plan import Plan, plan_commit, plan_working_dir
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.policy.crawlpolicy import CrawlPolicy

from monodex.disk.paths import Paths
from monodex.settings.config import Catalog


@dataclass(frozen=True)
class Source:
    catalog: Catalog
    repo: GitRepo
    policy: CrawlPolicy

    def resolve(self, revision: str | None) -> str:
        """The commit a revision names (HEAD when None)."""
        return self.repo.resolve(revision or "HEAD")

    def at_commit(self, commit: str) -> Plan:
        return plan_commit(self.repo, commit, self.policy, self.catalog.name)

    def working_dir(self, cache: dict[str, list[Any]] | None = None) -> Plan:
        return plan_working_dir(self.repo.workdir, self.policy, self.catalog.name, cache)

    def delta(self, bases: list[str], commit: str, extra: set[str] | None = None) -> Delta:
        return plan_delta(self.repo, bases, commit, self.policy, self.catalog.name, extra=extra or ())


def open_source(catalog: Catalog, paths: Paths) -> Source:
    repo = gitobjects.open_repo(catalog.path)
    return Source(catalog, repo, crawlpolicy.load(repo.workdir, paths))
