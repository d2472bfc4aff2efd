"""What an incremental refresh looks at: the paths that differ between the label's commit and the
new one, and, among them, the files the new commit should contribute (the same rules as
plan.py, evaluated on those paths only, so the cost follows the change and not the repository).

A path is in scope when it was added, modified, deleted or renamed, or when it lies under a
package manifest (package.json, Cargo.toml, go.mod, ...: packages/manifests.py) that was added, removed,
renamed or edited (its files may now belong to another package), or under a `.gitattributes`
that changed (its markers may now say otherwise of them). Files that enter or leave the crawl
policy are among the changed paths: the policy itself is the same on both sides (otherwise the
refresh follows the change: write/policychange.py, or is a full crawl).
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from monodex.indexer.git.gitobjects import Change, GitRepo, TreeEntry
from monodex.indexer.git.plan import Plan, blob_reader, is_attributes, select_files
from monodex.indexer.packages.lookup import walk_up
from monodex.indexer.packages.manifests import MANIFESTS, is_manifest, manifest_name
from monodex.indexer.policy.attributes import FILE as ATTRIBUTES_FILE
from monodex.indexer.policy.attributes import Attributes
from monodex.indexer.policy.crawlpolicy import CrawlPolicy


@dataclass
class Delta:
    scope: set[str]  # every path whose membership in the label may change
    plan: Plan  # the files the new commit has among scope
    changed_paths: int = 0  # paths in the tree diffs (before package widening)
    package_paths: int = 0  # paths added because a package manifest moved or changed (or `extra`)
    # ... those paths: their bytes may be unchanged while their fate is not (a .gitattributes line
    # edited above them), so a stored file among them is judged again (write/crawl.py)
    widened: frozenset[str] = frozenset()
    stats: Counter[str] = field(default_factory=Counter)


class _Packages:
    """Nearest manifest's package name for a path in one commit, by walking up its folders."""

    def __init__(self, repo: GitRepo, commit: str) -> None:
        self.repo, self.commit = repo, commit
        self.names: dict[str, dict[str, str]] = {}

    def _at(self, folder: str) -> dict[str, str]:
        if folder not in self.names:
            found: dict[str, str] = {}
            files = self.repo.files_in(self.commit, folder)
            for base, eco in MANIFESTS.items():  # in rank order: the first of an ecosystem wins
                manifest = posixpath.join(folder, base) if folder else base
                entry = None if eco in found else files.get(base)
                if entry is not None and entry.kind == "file":
                    _, content = next(self.repo.read_blobs([entry.blob_id]))
                    if (name := manifest_name(manifest, content)) is not None:
                        found[eco] = name
            self.names[folder] = found
        return self.names[folder]

    def lookup(self, relative_path: str) -> str | None:
        return walk_up(relative_path, self._at)


def lazy_attributes(repo: GitRepo, commit: str) -> Attributes:
    """A commit's .gitattributes, each read when a path below its folder is first asked about:
    the cost follows the folders of the paths asked, not the size of the tree."""

    def load(folder: str) -> bytes | None:
        entry = repo.entry_at(commit, posixpath.join(folder, ATTRIBUTES_FILE))
        if entry is None or entry.kind != "file":
            return None
        return next(repo.read_blobs([entry.blob_id]))[1]

    return Attributes(load)


def _name_may_change(repo: GitRepo, ch: Change) -> bool:
    """False for an edited manifest whose `name` stayed the same (a version bump)."""
    if ch.kind != "modify" or not ch.old_blob or not ch.new_blob:
        return True
    blobs = dict(repo.read_blobs([ch.old_blob, ch.new_blob]))
    path = ch.new_path or ""
    return manifest_name(path, blobs[ch.old_blob]) != manifest_name(path, blobs[ch.new_blob])


def plan_delta(
    repo: GitRepo,
    bases: Sequence[str],
    target: str,
    policy: CrawlPolicy,
    catalog: str,
    *,
    extra: Iterable[str] = (),
) -> Delta:
    """Scope = paths changed from any of `bases` to `target` (several bases when an interrupted
    refresh towards another commit must be finished too), widened by moved packages and by
    `extra` (paths a change of policy or chunkers touches: write/policychange.py)."""
    scope: set[str] = set()
    manifest_dirs: set[str] = set()
    for base in dict.fromkeys(bases):
        for ch in repo.diff_trees(base, target):
            for path in (ch.old_path, ch.new_path):
                if path is None:
                    continue
                scope.add(path)
                if is_manifest(path) and _name_may_change(repo, ch):
                    manifest_dirs.add(posixpath.dirname(path))
                elif is_attributes(path) and policy.gitattributes:
                    manifest_dirs.add(posixpath.dirname(path))  # every file below may change fate
    diffed = set(scope)
    for folder in manifest_dirs:  # files below a moved or renamed package may change package
        scope.update(e.path for e in repo.entries_under(target, folder))
    scope.update(extra)
    attrs = lazy_attributes(repo, target)
    # A path the policy never crawls holds nothing in the label and contributes nothing: it
    # stays in scope (harmless) but costs no tree lookup. Release commits bump hundreds of them.
    candidates = sorted(p for p in scope if policy.should_crawl(p, attrs))
    entries = [e for p in candidates if (e := repo.entry_at(target, p)) is not None]
    wanted = [e for e in entries if e.kind == "file" and policy.should_crawl(e.path, attrs)]
    sizes = repo.blob_sizes(e.blob_id for e in wanted)
    sized = [TreeEntry(e.path, e.blob_id, e.mode, sizes.get(e.blob_id)) for e in entries]
    packages = _Packages(repo, target)
    files, skipped = select_files(sized, policy, packages, catalog, attrs)

    plan = Plan(files, packages, skipped, blob_reader(repo))
    widened = frozenset(scope - diffed)
    return Delta(
        scope=scope, plan=plan, changed_paths=len(diffed), package_paths=len(widened), widened=widened
    )
