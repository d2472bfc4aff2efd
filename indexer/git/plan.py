"""What a crawl will index: files of a commit tree or of the work tree, filtered by the crawl
policy, with their package and chunker, and a reader that yields only text.

Skip reasons, counted in `Plan.skipped`:
- when planning: `submodule`, `symlink`, the policy's rule (`no file type for .png`,
  `vendored: node_modules/`, `lock file: yarn.lock`, `folder gen/`: CrawlPolicy.skip_reason),
  the repository's .gitattributes markers (`generated: .gitattributes linguist-generated`,
  attributes.py), `path-not-utf8`, `size` (over the policy's maxFileBytes, known from object
  headers or stat before reading), `empty`, `unreadable` (working dir only);
- when reading (`Plan.reader` / `iter_contents` add to the same counter as they go): `binary`
  (a NUL byte in the first 8000 bytes, git's heuristic), `not-utf8`, `minified: ...` /
  `generated: ...` (a bundle, a file on a few very long lines, a tool's header: generated.py;
  never for Markdown, nor where .gitattributes says `-linguist-generated`), and for
  working-dir files that changed since planning, `changed`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monodex.indexer.git import worktree
from monodex.indexer.git.gitobjects import GitRepo, TreeEntry
from monodex.indexer.git.sources import SourceFile
from monodex.indexer.packages.lookup import PackageIndex, PackageLookup, package_of
from monodex.indexer.packages.manifests import is_manifest
from monodex.indexer.points.identity import git_blob_sha1
from monodex.indexer.policy.attributes import FILE as ATTRIBUTES_FILE
from monodex.indexer.policy.attributes import Attributes
from monodex.indexer.policy.crawlpolicy import SCRIPT, CrawlPolicy
from monodex.indexer.policy.generated import license_listing, looks_generated

from monodex.schema.languages import is_git_hook

_BINARY_PROBE = 8000  # git's buffer_is_binary() looks at the first 8000 bytes


@dataclass(frozen=True)
class PlannedFile(SourceFile):
    """A file the crawl will read: SourceFile plus its size in bytes (None when unknown), and
    whether its content is checked for a generator's marks (not when the repository's
    .gitattributes says `-linguist-generated`)."""

    size: int | None = None
    checked: bool = True


class Skips(Counter[str]):
    """Skip counts by reason, plus each skipped path with its reason (`crawl --dry-run` lists them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paths: list[tuple[str, str]] = []

    def add(self, path: str, reason: str) -> None:
        self[reason] += 1
        self.paths.append((path, reason))


def _skip(skipped: Counter[str], path: str, reason: str) -> None:
    if isinstance(skipped, Skips):
        skipped.add(path, reason)
    else:
        skipped[reason] += 1


# Reads planned files in bulk: (file, raw bytes) in any order, or (file, None) when the file
# changed since planning (working dir).
RawReader = Callable[[Sequence[SourceFile]], Iterator[tuple[SourceFile, bytes | None]]]


@dataclass
class Plan:
    files: list[PlannedFile]
    packages: PackageLookup
    skipped: Counter[str] = field(default_factory=Skips)
    read_raw: RawReader = field(default=lambda files: iter(()), repr=False)

    @property
    def sizes(self) -> dict[str, int]:
        """relative_path -> size in bytes, for the planned files whose size is known."""
        return {f.relative_path: f.size for f in self.files if f.size is not None}

    def reader(self, files: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes]]:
        """Yield the text files among `files` (a `sources.Reader`); count the others as skipped.

        Each call counts what it reads, so read each file once per plan.
        """
        for f, content in self.read_raw(files):
            checked = not isinstance(f, PlannedFile) or f.checked
            problem = (
                "changed" if content is None else text_problem(content, f.relative_path, f.strategy, checked)
            )
            if problem:
                _skip(self.skipped, f.relative_path, problem)
            else:
                assert content is not None
                yield f, content


def iter_contents(plan: Plan) -> Iterator[tuple[SourceFile, bytes]]:
    """(file, bytes) for every planned text file; binary and non-UTF-8 ones land in plan.skipped."""
    return plan.reader(plan.files)


# A page is never judged generated: a tool's report (an API Extractor `.api.md`: "Do not edit
# this file") is written for people to read. "" is a caller that names no strategy. TypeScript
# is judged by its header only (generated.py).
_NEVER_GENERATED = ("markdown", "")


def text_problem(content: bytes, path: str = "", strategy: str = "", checked: bool = True) -> str | None:
    """Why content is not indexed as text (`no file type for LICENSE`: a `script` without a `#!`
    line that is no git hook, `empty`, `binary`, `not-utf8`, and, when `checked`,
    for a file of another strategy `minified: ...` or `generated: ...`, for any a third-party
    licence listing: generated.py), or None."""
    if strategy == SCRIPT and not content.startswith(b"#!") and not is_git_hook(path):
        return f"no file type for {path.rsplit('/', 1)[-1]}"  # a LICENSE: no script
    if not content:
        return "empty"
    if b"\x00" in content[:_BINARY_PROBE]:
        return "binary"
    try:
        content.decode("utf-8")
    except UnicodeDecodeError:
        return "not-utf8"
    if not checked:
        return None
    if listing := license_listing(path, content):
        return listing  # a page too: the tool's listing is not written for a question
    if strategy in _NEVER_GENERATED:
        return None
    return looks_generated(path, content, shape=strategy != "typescript")


def entry_problem(entry: TreeEntry, policy: CrawlPolicy, attrs: Attributes | None = None) -> str | None:
    """Why a tree entry is not planned, before reading it (size may be None: not checked)."""
    if entry.kind != "file":
        return entry.kind
    if (rule := policy.skip_reason(entry.path, attrs)) is not None:
        return rule
    if _surrogates(entry.path):
        return "path-not-utf8"
    if entry.size is not None and entry.size > policy.byte_limit(entry.path):
        return "size"
    if entry.size == 0:
        return "empty"
    return None


def _surrogates(path: str) -> bool:
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def select_files(
    entries: Sequence[TreeEntry],
    policy: CrawlPolicy,
    packages: PackageLookup,
    catalog: str,
    attrs: Attributes | None = None,
) -> tuple[list[PlannedFile], Counter[str]]:
    """The entries to crawl, as PlannedFiles (package falls back to the catalog name)."""
    files: list[PlannedFile] = []
    skipped = Skips()
    for e in entries:
        problem = entry_problem(e, policy, attrs)
        strategy = policy.strategy_for(e.path)
        if problem or strategy is None:
            skipped.add(e.path, problem or "no file type")
            continue
        package = package_of(packages, e.path, catalog)
        checked = "generated" not in policy.marks(e.path, attrs).waived
        files.append(PlannedFile(e.path, e.blob_id, strategy, package, e.size, checked))
    return files, skipped


def is_attributes(path: str) -> bool:
    return path == ATTRIBUTES_FILE or path.endswith("/" + ATTRIBUTES_FILE)


def commit_attributes(repo: GitRepo, entries: Sequence[TreeEntry]) -> Attributes:
    """The .gitattributes files of a commit's tree (git reads no symlinked one)."""
    found = [e for e in entries if e.kind == "file" and is_attributes(e.path)]
    blobs = dict(repo.read_blobs(e.blob_id for e in found))
    return Attributes.of({e.path: blobs[e.blob_id] for e in found})


def plan_commit(repo: GitRepo, commit: str, policy: CrawlPolicy, catalog: str) -> Plan:
    """Plan a crawl of `commit` (a 40-hex id from repo.resolve) from git objects only."""
    entries = repo.tree_entries(commit)
    manifests = [e for e in entries if e.kind == "file" and is_manifest(e.path)]
    blobs = dict(repo.read_blobs(e.blob_id for e in manifests))
    packages = PackageIndex.from_manifests((e.path, blobs[e.blob_id]) for e in manifests)
    attrs = commit_attributes(repo, entries)
    wanted = [e for e in entries if e.kind == "file" and policy.should_crawl(e.path, attrs)]
    sizes = repo.blob_sizes(e.blob_id for e in wanted)
    sized = [TreeEntry(e.path, e.blob_id, e.mode, sizes.get(e.blob_id)) for e in entries]
    files, skipped = select_files(sized, policy, packages, catalog, attrs)

    return Plan(files, packages, skipped, blob_reader(repo))


def blob_reader(repo: GitRepo) -> RawReader:
    """Reads files from git objects, each distinct blob once."""

    def read_raw(chosen: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes | None]]:
        by_blob: dict[str, list[SourceFile]] = {}
        for f in chosen:
            by_blob.setdefault(f.blob_id, []).append(f)
        for blob_id, content in repo.read_blobs(by_blob):
            for f in by_blob[blob_id]:
                yield f, content

    return read_raw


def plan_working_dir(
    root: Path, policy: CrawlPolicy, catalog: str, cache: worktree.StatCache | None = None
) -> Plan:
    """Plan a crawl of the files on disk (worktree.py): never following links, .gitignore
    respected, blob ids as `git hash-object` computes them, packages from the manifests on disk."""
    attrs = Attributes(lambda folder: worktree.read(root, f"{folder}/{ATTRIBUTES_FILE}".lstrip("/")))
    wanted = lambda path: policy.should_crawl(path, attrs)  # noqa: E731
    tree = worktree.scan(root, wanted, max_bytes=policy.byte_limit, cache=cache)
    packages = PackageIndex.from_working_dir(root, tree.manifests)
    files, skipped = select_files(tree.entries, policy, packages, catalog, attrs)
    skipped.update(tree.skipped)

    def read_raw(chosen: Sequence[SourceFile]) -> Iterator[tuple[SourceFile, bytes | None]]:
        for f in chosen:
            content = worktree.read(root, f.relative_path)
            unchanged = content is not None and git_blob_sha1(content) == f.blob_id
            yield f, content if unchanged else None

    return Plan(files, packages, skipped, read_raw)
