"""The one request type of the write side: a label to bring to a commit (or to the working
directory), from the CLI, a socket client, `--fresh`, verify's repair or a spool entry."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from monodex import names
from monodex.runner import spool
from monodex.settings.config import Catalog


@dataclass(frozen=True)
class Request:
    catalog: Catalog
    label: str
    # A revision (None: HEAD), until `at` pins the commit it resolved to: a Crawl takes only a
    # pinned request. Unused with working_dir.
    commit: str | None = None
    working_dir: bool = False
    full: bool = False  # never incremental

    @classmethod
    def from_spool(cls, catalog: Catalog, entry: spool.Request, commit: str) -> Request:
        """A hook's (or `--fresh`'s) spool entry, at the commit the runner decided to index."""
        return cls(catalog, entry.label, commit)

    def at(self, commit_oid: str) -> Request:
        """The request pinned to the commit it resolved to ("" for a working directory)."""
        return dataclasses.replace(self, commit=commit_oid)

    @property
    def label_id(self) -> str:
        return names.label_id(self.catalog.name, self.label)

    @property
    def commit_oid(self) -> str:
        return "" if self.working_dir else self.commit or ""

    @property
    def source_kind(self) -> str:
        return "working-directory" if self.working_dir else "git-commit"

    @property
    def repo_root(self) -> Path:
        return self.catalog.path
