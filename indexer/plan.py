"""What a crawl will index: files from a commit tree or the work tree, filtered by policy,
with their package, plus a reader that yields only text and counts what it skips."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from monodex.indexer.crawlpolicy import CrawlPolicy
from monodex.indexer.gitobjects import GitRepo, TreeEntry
from monodex.indexer.identity import git_blob_sha1
from monodex.indexer.packages import PackageIndex, is_manifest
from monodex.indexer.sources import Reader, SourceFile

# git's own binary heuristic: a NUL byte in the first 8000 bytes.
_BINARY_PROBE = 8000


@dataclass
class Plan:
    files: list[SourceFile]
    sizes: dict[str, int]
    # Counts by reason; the reader adds `binary`, `not-utf8` and `size` as it reads.
    skipped: Counter[str] = field(default_factory=Counter)
    reader: Reader = field(default=lambda files: iter(()))


def text_problem(content: bytes, limit: int) -> str | None:
    """Why a file's content is not indexed, or None."""
    if not content:
        return "empty"
    if len(content) > limit:
        return "size"
    if b"\x00" in content[:_BINARY_PROBE]:
        return "binary"
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return "not-utf8"
    return None


def _select(
    entries: Sequence[TreeEntry],
    policy: CrawlPolicy,
    packages: PackageIndex,
    catalog: str,
    skipped: Counter[str],
) -> list[SourceFile]:
    files = []
    for e in entries:
        strategy = policy.strategy_for(e.path)
        if not policy.should_crawl(e.path) or strategy is None:
            skipped["policy"] += 1
        elif e.kind != "file":
            skipped[e.kind] += 1
        else:
            files.append(SourceFile(e.path, e.blob_id, strategy, packages.lookup(e.path) or catalog))
    return files


def plan_commit(repo: GitRepo, commit: str, policy: CrawlPolicy, catalog: str) -> Plan:
    entries = repo.tree_entries(commit)
    manifests = [e for e in entries if e.kind == "file" and is_manifest(e.path)]
    blobs = dict(repo.read_blobs(e.blob_id for e in manifests))
    packages = PackageIndex.from_manifests((e.path, blobs[e.blob_id]) for e in manifests)
    skipped: Counter[str] = Counter()
    files = _select(entries, policy, packages, catalog, skipped)
    plan = Plan(files=files, sizes={}, skipped=skipped)

    def reader(chosen: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes]]:
        by_blob: dict[str, list[SourceFile]] = {}
        for f in chosen:
            by_blob.setdefault(f.blob_id, []).append(f)
        for blob_id, content in repo.read_blobs(by_blob):
            problem = text_problem(content, policy.max_file_bytes)
            for f in by_blob[blob_id]:
                plan.sizes[f.relative_path] = len(content)
                if problem:
                    plan.skipped[problem] += 1
                else:
                    yield f, content

    plan.reader = reader
    return plan


def _walk(root: Path) -> Iterator[tuple[str, os.DirEntry[str]]]:
    stack = [""]
    while stack:
        rel = stack.pop()
        with os.scandir(root / rel if rel else root) as it:
            for entry in it:
                path = f"{rel}/{entry.name}" if rel else entry.name
                if entry.name == ".git" and not rel:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append(path)
                else:
                    yield path, entry


def plan_working_dir(root: Path, policy: CrawlPolicy, catalog: str, *, ignored: object = None) -> Plan:
    """Files on disk (never following links), with blob ids as `git hash-object` computes them."""
    from monodex.indexer.gitobjects import ignore_filter

    is_ignored = ignore_filter(root)
    entries: list[TreeEntry] = []
    contents: dict[str, bytes] = {}
    for path, entry in _walk(root):
        if is_ignored(path):
            continue
        if entry.is_symlink():
            entries.append(TreeEntry(path, "", 0o120000, "symlink"))
            continue
        if not entry.is_file(follow_symlinks=False):
            continue
        wanted = policy.should_crawl(path) or path.endswith("package.json")
        content = Path(entry.path).read_bytes() if wanted else b""
        contents[path] = content
        entries.append(TreeEntry(path, git_blob_sha1(content) if wanted else "", 0o100644, "file"))
    packages = PackageIndex.from_manifests((p, c) for p, c in contents.items() if p.endswith("package.json"))
    skipped: Counter[str] = Counter()
    files = _select(entries, policy, packages, catalog, skipped)
    plan = Plan(files=files, sizes={}, skipped=skipped)

    def reader(chosen: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes]]:
        for f in chosen:
            content = contents[f.relative_path]
            plan.sizes[f.relative_path] = len(content)
            problem = text_problem(content, policy.max_file_bytes)
            if problem:
                plan.skipped[problem] += 1
            else:
                yield f, content

    plan.reader = reader
    return plan
