"""One file's chunks prepared for the store: decode, chunk, payloads, lexical vectors.

A pure function of its inputs, so a worker process computes exactly what the crawl's own thread
would (tests/indexer/write/test_crawl_output.py pins the result)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from monodex.indexer import chunkers
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.git.sources import SourceFile
from monodex.indexer.points import lexical
from monodex.indexer.points.payloads import FileInfo, chunk_payload, embed_text
from monodex.indexer.store.base import SparseVector

from monodex.schema.payload import ChunkPayload


@dataclass(frozen=True)
class FileTask:
    """A file read and to be chunked; `keep` are the label keys its points carry."""

    info: FileInfo
    file: SourceFile
    content: bytes
    keep: tuple[str, ...] = ()


@dataclass(eq=False)
class FileJob:
    """One file's chunks on their way to the store."""

    file_id: str
    payloads: list[ChunkPayload]  # ordinal order; ordinal 1 is the sentinel
    texts: list[str]  # what is embedded, aligned with payloads
    sparse: list[SparseVector] = field(default_factory=list)  # lexical vectors, aligned
    vectors: list[Any] = field(default_factory=list)
    known: dict[int, Any] = field(default_factory=dict)  # index -> a stored vector for the same text


def prepare(task: FileTask, budget: int) -> FileJob | None:
    """The file's job, or None when it has no chunk (blank) or is not UTF-8 (the planner's
    reader filters those; a custom reader may not)."""
    try:
        text = task.content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    info, f = task.info, task.file
    ctx = FileContext(relative_path=f.relative_path, package_name=f.package_name, budget=budget)
    chunks = chunkers.chunk_file(f.strategy, text, ctx)
    if not chunks:
        return None
    keep = list(task.keep)
    texts = [embed_text(info, c) for c in chunks]
    lang = chunkers.lang_chosen(f.strategy, text, f.relative_path)
    payloads = [
        chunk_payload(info, c, ordinal=i, count=len(chunks), labels=keep, embedded=t, lang=lang)
        for i, (c, t) in enumerate(zip(chunks, texts, strict=True), start=1)
    ]
    sparse = [lexical.document_vector(t) for t in texts]
    return FileJob(file_id=info.file_id, payloads=payloads, texts=texts, sparse=sparse)
