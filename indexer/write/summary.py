"""What a crawl or refresh did (CrawlSummary), counted as it goes and answered as CrawlAnswer."""

from __future__ import annotations

from dataclasses import dataclass, field

from monodex.schema.crawl import CrawlAnswer, Filled


@dataclass
class CrawlSummary:
    catalog: str
    label: str
    commit: str
    mode: str = "full"
    files_total: int = 0  # the files the label holds now
    files_unchanged: int = 0  # held already at that path: a refresh left them alone
    files_reused: int = 0
    files_embedded: int = 0
    files_removed: int = 0
    chunks_embedded: int = 0  # run through the model
    chunks_reused: int = 0  # vectors copied from stored chunks with the same embedded text
    chunks_pending: int = 0  # stored without a dense vector yet (phase two adds them)
    seconds: float = 0.0
    searchable_seconds: float = 0.0  # until the label reflected its commit (end of phase one)
    dense: Filled | None = None  # phase two in the same command, if run
    skipped: dict[str, int] = field(default_factory=dict)
    upload_requests: int = 0

    def as_json(self) -> CrawlAnswer:
        out: CrawlAnswer = {
            "catalog": self.catalog,
            "label": self.label,
            "commit": self.commit,
            "mode": self.mode,
            "files_total": self.files_total,
            "files_unchanged": self.files_unchanged,
            "files_reused": self.files_reused,
            "files_embedded": self.files_embedded,
            "files_removed": self.files_removed,
            "chunks_embedded": self.chunks_embedded,
            "chunks_reused": self.chunks_reused,
            "chunks_pending": self.chunks_pending,
            "seconds": round(self.seconds, 3),
            "searchable_seconds": round(self.searchable_seconds, 3),
            "skipped": dict(self.skipped),
        }
        if self.dense:
            out["dense"] = self.dense
        return out
