"""Fit search results into a token budget: an agent's context window is the scarce resource.

Hits are taken in rank order. A hit next to a block already taken from the same file joins that
block (one header, no repeated context). The first hit that does not fit whole is cut at a line
boundary to the room left (or left out when not even its first line fits), and packing stops
there: a hit ranked lower is never packed in place of a higher one (issue 14). Every hit not
packed is listed. A block costs the tokens of its header line (`path:start-end`) plus its text,
counted with the embedder's own tokenizer.
"""

from __future__ import annotations

from collections.abc import Callable

from monodex.schema.payload import Key
from monodex.schema.search import Budget, Hit, Omitted

Count = Callable[[str], int]


def header(block: Hit) -> str:
    return f"{block['relative_path']}:{block['start_line']}-{block['end_line']}"


def cost(block: Hit, count: Count) -> int:
    return count(header(block) + "\n" + str(block[Key.TEXT]))


def pack(results: list[Hit], max_tokens: int, count: Count) -> tuple[list[Hit], Budget]:
    """(blocks by score, summary). Each block is a result with `chunk_ordinals`, `tokens` and
    `truncated` added; the blocks' `tokens` sum to at most max_tokens."""
    blocks: list[Hit] = []
    omitted: list[Omitted] = []
    used = 0
    full = False  # a hit did not fit whole: everything ranked below it is left out
    for hit in sorted(results, key=lambda r: -float(r["score"])):
        if full:
            omitted.append(_omitted(hit, cost({**hit, "chunk_ordinals": [hit[Key.CHUNK_ORDINAL]]}, count)))
            continue
        single: Hit = {**hit, "chunk_ordinals": [hit[Key.CHUNK_ORDINAL]], "truncated": False}
        single["tokens"] = cost(single, count)
        neighbour = next((b for b in blocks if _adjacent(b, hit)), None)
        if neighbour is not None and not neighbour["truncated"]:
            merged = _merge(neighbour, single)
            merged["tokens"] = cost(merged, count)
            if used - neighbour["tokens"] + merged["tokens"] <= max_tokens:
                used += merged["tokens"] - neighbour["tokens"]
                blocks[blocks.index(neighbour)] = merged
                continue
        if used + single["tokens"] <= max_tokens:
            blocks.append(single)
            used += single["tokens"]
            continue
        full = True
        cut = _truncate(single, max_tokens - used, count)
        if cut is not None:
            blocks.append(cut)
            used += cut["tokens"]
            continue
        omitted.append(_omitted(hit, single["tokens"]))
    summary: Budget = {
        "max_tokens": max_tokens,
        "used_tokens": used,
        "hits_packed": sum(len(b["chunk_ordinals"]) for b in blocks),
        "truncated": sum(1 for b in blocks if b["truncated"]),
        "omitted": omitted,
    }
    return blocks, summary


def _omitted(hit: Hit, tokens: int) -> Omitted:
    return Omitted(
        relative_path=hit[Key.RELATIVE_PATH],
        start_line=hit[Key.START_LINE],
        end_line=hit[Key.END_LINE],
        score=hit["score"],
        file_id=hit[Key.FILE_ID],
        tokens=tokens,
    )


def _adjacent(block: Hit, hit: Hit) -> bool:
    if block[Key.FILE_ID] != hit[Key.FILE_ID]:
        return False
    ords = block["chunk_ordinals"]
    return bool(hit[Key.CHUNK_ORDINAL] == min(ords) - 1 or hit[Key.CHUNK_ORDINAL] == max(ords) + 1)


def _merge(block: Hit, single: Hit) -> Hit:
    first, second = (
        (single, block) if single[Key.CHUNK_ORDINAL] < min(block["chunk_ordinals"]) else (block, single)
    )
    # Chunks tile the file's bytes exactly, so neighbours concatenate into the file's own text.
    return {
        **block,  # the better-scoring hit keeps its breadcrumb, symbol and score
        Key.CHUNK_ORDINAL: min(first["chunk_ordinals"]),
        "chunk_ordinals": sorted(block["chunk_ordinals"] + single["chunk_ordinals"]),
        Key.START_LINE: first[Key.START_LINE],
        Key.END_LINE: second[Key.END_LINE],
        Key.TEXT: str(first[Key.TEXT]) + str(second[Key.TEXT]),
    }


def _truncate(single: Hit, room: int, count: Count) -> Hit | None:
    lines = str(single[Key.TEXT]).splitlines(keepends=True)
    lo, hi = 0, len(lines) - 1  # the most leading lines that fit, by bisection (cost grows with lines)
    best: Hit | None = None
    while lo <= hi:
        mid = (lo + hi) // 2
        if mid < 1:
            lo = mid + 1
            continue
        cand: Hit = {
            **single,
            Key.TEXT: "".join(lines[:mid]),
            Key.END_LINE: single[Key.START_LINE] + mid - 1,
            "truncated": True,
        }
        cand["tokens"] = cost(cand, count)
        if cand["tokens"] <= room:
            best, lo = cand, mid + 1
        else:
            hi = mid - 1
    return best
