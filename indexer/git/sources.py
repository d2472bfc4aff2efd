"""What the crawl consumes: files to index and a way to read them, from git or the file system."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SourceFile:
    relative_path: str
    blob_id: str  # git blob SHA-1 (commit tree, or `git hash-object` of a working-dir file)
    strategy: str  # chunker name from the crawl policy
    package_name: str


# Reads the given files in bulk; yields (file, bytes) for each, in any order.
Reader = Callable[[Sequence[SourceFile]], Iterator[tuple[SourceFile, bytes]]]


def no_longer_text(reader: Reader, files: Sequence[SourceFile]) -> set[str]:
    """The paths among `files` a reader no longer yields as text to index (a plan's reader judges
    each file it reads by the content rules, and counts what it leaves out with its reason)."""
    return {f.relative_path for f in files} - {f.relative_path for f, _ in reader(files)}
