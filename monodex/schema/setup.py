"""Answers of the commands that set monodex up and never touch the index: catalogs registered,
tracked and removed, the default context, the hooks, the runner's service unit."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class CatalogRow(TypedDict):
    name: str
    type: str
    path: str
    track: list[str]  # branch globs the hooks refresh besides the default branch


class CatalogAdded(CatalogRow):
    next: list[str]  # what the new catalog still needs: an index, hooks, a runner


class CatalogTracked(CatalogRow):
    resumed_labels: list[str]  # labels the hooks refresh again (removed by hand before)


class CatalogList(TypedDict):
    catalogs: list[CatalogRow]


class CatalogRemoved(TypedDict):
    name: str
    purged: bool
    type: NotRequired[str]
    path: NotRequired[str]
    track: NotRequired[list[str]]
    labels_removed: NotRequired[list[str]]
    chunks_deleted: NotRequired[int]


class Context(TypedDict):
    catalog: str | None
    label: str | None


class HooksDone(TypedDict):
    action: str  # install | uninstall
    hooks_dir: str
    hooks: list[str]
    chained: list[str]
    note: NotRequired[str]


class ServiceWritten(TypedDict):
    unit: str
    next: str


class ServiceRemoved(TypedDict):
    removed: str | None
