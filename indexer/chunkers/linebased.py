"""Any other text: greedy windows of whole lines up to the budget."""

from __future__ import annotations

from monodex.indexer.chunkers.base import Chunk, FileContext
from monodex.indexer.chunkers.breadcrumb import breadcrumb
from monodex.indexer.chunkers.kinds import file_kind
from monodex.indexer.chunkers.lines import Lines, greedy_windows, merge_blank

name = "lineBased"
version = "v2"


def chunk(text: str, ctx: FileContext) -> list[Chunk]:
    lines = Lines.of(text)
    if not text.strip():
        return []
    kind = file_kind(ctx.relative_path, "lineBased")
    crumb = breadcrumb(ctx.package_name, ctx.relative_path)
    windows = greedy_windows(lines, 0, len(lines.lines) - 1, ctx.budget)
    spans = merge_blank([(a, b, "") for a, b in windows], lines, ctx.budget)
    return [Chunk(lines.text(a, b), a + 1, b + 1, None, "text", kind, crumb) for a, b, _ in spans]
