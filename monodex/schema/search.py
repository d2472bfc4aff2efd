"""A search's answer (ops/search.py): its hits, the freshness of the label(s) that answered, the
token budget it was packed into, and a file read back by `view`."""

from __future__ import annotations

from typing import Annotated, NotRequired, TypedDict


class Moved(TypedDict):
    """One ranking signal that moved a hit (read/signals.py)."""

    signal: str
    change: float
    why: str


class Explain(TypedDict):
    """--explain: where each list ranked the hit and what moved it after fusion."""

    mode: str
    fused_rank: int
    fused_score: float
    dense_rank: int | None
    lexical_rank: int | None
    signals: list[Moved]
    rank_after_signals: int
    role: str
    demoted: bool


class Reading(TypedDict):
    """--explain: how the query was read before ranking (indexer/question/query.py)."""

    read_as: Annotated[str, "name (one code name), question, phrase (asked as a question) or change request"]
    names: Annotated[list[str], "the code names it spells: their definitions join the candidates"]
    asks: Annotated[list[str], "what it asks for on purpose (test, example, benchmark, docs, ci, agent)"]


class OtherVersion(TypedDict):
    label: str
    file_id: Annotated[str, "that label's version of the file (pass to `view` with the label)"]


class Part(TypedDict):
    """Another part of a hit's file that matched: where it is, to read it next."""

    start_line: int
    end_line: int
    chunk_ordinal: int
    symbol_name: str | None
    score: float


class Hit(TypedDict):
    """One result: a stored chunk's fields (payload.HIT_FIELDS) and its score; packed into a
    budget it is a block of neighbouring chunks of one file."""

    score: float
    file_id: Annotated[str, "pass to `view` to read the file"]
    chunk_ordinal: int
    chunk_count: int
    relative_path: str
    start_line: int
    end_line: int
    package_name: str | None
    breadcrumb: str | None
    symbol_name: str | None
    chunk_kind: str
    text: str
    chunk_ordinals: NotRequired[Annotated[list[int], "chunks merged into this block"]]
    tokens: NotRequired[int]
    truncated: NotRequired[Annotated[bool, "the block was cut at a line to fit max_tokens"]]
    labels: NotRequired[Annotated[list[str], "with labels/all_labels: the labels holding this chunk"]]
    other_versions: NotRequired[
        Annotated[
            list[OtherVersion], "with labels/all_labels: searched labels holding another version of the file"
        ]
    ]
    also: NotRequired[Annotated[list[str], "the same page in other languages"]]
    more_in_file: NotRequired[
        Annotated[
            list[Part], "the file's next best matching parts (up to two, scoring half this hit's or more)"
        ]
    ]
    explain: NotRequired[Explain]


class Omitted(TypedDict):
    relative_path: str
    start_line: int
    end_line: int
    score: float
    file_id: str
    tokens: int


class Budget(TypedDict):
    max_tokens: int
    used_tokens: int
    hits_packed: int
    truncated: int
    omitted: Annotated[list[Omitted], "hits left out for lack of room, best first"]


class Wait(TypedDict):
    seconds: float
    reached: Annotated[bool, "true when the label reflects the branch's current commit"]
    dense_reached: NotRequired[bool]
    waited_seconds: float


class Overlay(TypedDict):
    """A worktree's uncommitted files laid over its branch's label (overlay/update.py)."""

    applied: Annotated[bool, "false when the worktree is not on the label's branch (see skipped)"]
    worktree: str
    files: Annotated[int, "uncommitted files searched in place of the committed ones"]
    paths: Annotated[int, "changed paths whose committed files are hidden"]
    seconds: Annotated[float, "time spent bringing the overlay up to date"]
    updated: NotRequired[bool]
    files_read: NotRequired[int]
    dense_pending: NotRequired[int]
    skipped: NotRequired[str]


class BranchGone(TypedDict):
    branch: str
    since: int | None


class Caught(TypedDict):
    """A label brought to a commit before answering (follow/ondemand.py): indexed on demand, or
    caught up to the commit checked out where you stand."""

    ref: str
    commit: str
    seconds: float
    chunks_pending: int
    files_reused: NotRequired[int]
    files_stored: NotRequired[int]


class OnDemand(Caught):
    label: str


class CaughtUp(Caught):
    from_commit: str | None
    to_commit: str


class Freshness(TypedDict):
    """Whether a label reflects its branch (follow/freshness.py), and for a search of one label
    which label, worktree and commit answered."""

    indexed_commit: Annotated[str | None, "the commit the label's index reflects"]
    complete: Annotated[bool, "false while a refresh of the label is in progress"]
    source_kind: str
    branch: Annotated[str | None, "the branch the label tracks, when one maps to it"]
    branch_commit: Annotated[str | None, "that branch's current commit"]
    fresh: Annotated[bool | None, "indexed_commit == branch_commit; null without a branch"]
    refresh_pending: Annotated[bool, "a refresh is queued or running"]
    refresh_error: NotRequired[str]
    worktree: NotRequired[
        Annotated[str | None, "the checkout (linked worktree) the answer is for, when it is where you stand"]
    ]
    commit: NotRequired[Annotated[str | None, "the commit the answer reflects (the label's)"]]
    dense_coverage: NotRequired[
        Annotated[float, "share of the label's chunks with a dense vector (1.0: fully hybrid)"]
    ]
    wait: NotRequired[Wait]
    overlay: NotRequired[Annotated[Overlay, "the worktree's uncommitted files, when searched"]]
    label: NotRequired[Annotated[str, "the label that answered (a branch's own, never another's)"]]
    checkout_commit: NotRequired[Annotated[str, "the commit checked out where you stand"]]
    caught_up: NotRequired[
        Annotated[CaughtUp, "the label was behind that commit and was caught up before answering"]
    ]
    as_indexed: NotRequired[bool]
    problem: NotRequired[str]
    hint: NotRequired[str]
    branch_gone: NotRequired[BranchGone]


class ServedBy(TypedDict):
    """After a model change: the previous model's collection answered (ops/search.py `_generation`)."""

    collection: str
    embedder_id: str
    new_model_coverage: float
    note: str


class SearchAnswer(TypedDict):
    mode: Annotated[str, "the mode used (hybrid falls back to dense on an old index)"]
    results: list[Hit]
    freshness: NotRequired[Annotated[Freshness, "the label's; null with labels/all_labels"]]
    freshness_by_label: NotRequired[
        Annotated[dict[str, Freshness], "with labels/all_labels: each searched label's freshness"]
    ]
    dense_coverage: Annotated[
        float,
        "share of the label's chunks with a dense vector; the rest (new chunks whose vector is "
        "still being computed) are found by their words only",
    ]
    budget: NotRequired[Budget]
    on_demand: NotRequired[OnDemand]
    served_by: NotRequired[ServedBy]
    notes: NotRequired[list[str]]
    query: NotRequired[Reading]


class Searched(TypedDict):
    """What an MCP tool adds before the operation's answer: where it answered."""

    catalog: str
    label: Annotated[str | None, "the label searched; null with labels/all_labels"]


class ToolSearchAnswer(Searched, SearchAnswer):
    """The MCP search tool's answer: the CLI's, after the catalog and label it searched."""


class ViewChunk(TypedDict):
    chunk_ordinal: int
    chunk_count: int
    start_line: int
    end_line: int
    breadcrumb: str | None
    symbol_name: str | None
    chunk_type: str | None
    chunk_kind: str
    text: str


class ViewAnswer(TypedDict):
    file_id: str
    relative_path: str
    package_name: str | None
    chunks: list[ViewChunk]


class Viewed(TypedDict):
    catalog: str
    label: str


class ToolViewAnswer(Viewed, ViewAnswer):
    text: Annotated[str, "the selected chunks joined: the whole file when none is selected"]
