"""What a point stores (DESIGN.md "Storage"): the keys of a chunk's payload and of a label's facts
(its metadata point), and of the two other kinds of point (a label's delta, a worktree's overlay),
declared once. Code that reads, writes or filters on a payload names its keys as `Key.X`: a test
(tests/test_layout.py) finds any of these keys spelled as a string anywhere else.

Keys are never renamed: an index written by an older monodex is read by a newer one."""

from __future__ import annotations

from typing import Final, NotRequired, TypedDict


class Key:
    """Every payload key, by the kind of point that holds it (`source_type` tells them apart)."""

    # -- every point -------------------------------------------------------------------------
    SOURCE_TYPE: Final = "source_type"  # "code", "label-metadata", "label-delta", "overlay-metadata"
    CATALOG: Final = "catalog"  # a chunk's: the catalog that first stored it (provenance only)
    LABEL_ID: Final = "label_id"  # catalog:label; a chunk's: the label that first stored it

    # -- a chunk: the seed schema -------------------------------------------------------------
    TEXT: Final = "text"  # the raw text (the embedded text adds its context: payloads.embed_text)
    ACTIVE_LABEL_IDS: Final = "active_label_ids"  # membership keys: bases, in-place labels, overlays
    EMBEDDER_ID: Final = "embedder_id"
    CHUNKER_ID: Final = "chunker_id"
    BLOB_ID: Final = "blob_id"
    CONTENT_HASH: Final = "content_hash"  # sha256 of the text
    FILE_ID: Final = "file_id"  # points/identity.file_id
    RELATIVE_PATH: Final = "relative_path"
    PACKAGE_NAME: Final = "package_name"
    SOURCE_URI: Final = "source_uri"
    CHUNK_ORDINAL: Final = "chunk_ordinal"  # 1-based; chunk 1 is the file's sentinel
    CHUNK_COUNT: Final = "chunk_count"
    START_LINE: Final = "start_line"
    END_LINE: Final = "end_line"
    SYMBOL_NAME: Final = "symbol_name"
    CHUNK_TYPE: Final = "chunk_type"
    CHUNK_KIND: Final = "chunk_kind"  # content | imports | changelog | config
    BREADCRUMB: Final = "breadcrumb"  # package:File.ts:Symbol, percent-encoded
    FILE_COMPLETE: Final = "file_complete"  # on chunk 1 only, once every chunk is stored
    # -- a chunk: added since --------------------------------------------------------------------
    EMBEDDED_TEXT_HASH: Final = "embedded_text_hash"  # sha256 of what was embedded: vectors reused by it
    PATH_PREFIXES: Final = "path_prefixes"  # every ancestor folder and the path (--path)
    LANG: Final = "lang"  # the file's language, from its suffix (--lang)
    DENSE_PENDING: Final = "dense_pending"  # stored by phase one, its dense vector still to come
    DEFINES: Final = "defines"  # the names the chunk declares, squashed (points/defined.py)

    # -- a label's metadata: its facts ---------------------------------------------------------
    LABEL: Final = "label"
    COMMIT_OID: Final = "commit_oid"  # the commit it fully reflects ("" for a working directory)
    SOURCE_KIND: Final = "source_kind"  # git-commit | working-directory
    CRAWL_COMPLETE: Final = "crawl_complete"
    UPDATED_AT: Final = "updated_at_unix_secs"
    TARGET_COMMIT_OID: Final = "target_commit_oid"  # the commit its last crawl was bringing it to
    COMMIT_IS_TARGET: Final = "commit_is_target"  # commit_oid is an unfinished first crawl's
    MODE: Final = "mode"  # full | incremental | derived: how its last crawl ran
    BASE_COMMIT_OID: Final = "base_commit_oid"  # what an incremental crawl diffed from
    PENDING_COMMIT_OIDS: Final = "pending_commit_oids"  # commits interrupted refreshes were reaching
    FOLLOWED_CHANGE: Final = "followed_change"  # an incremental refresh also follows a policy change
    POLICY_FINGERPRINT: Final = "policy_fingerprint"  # the crawl policy it was crawled with
    POLICY: Final = "policy"  # that policy, canonical (write/policychange.py)
    IMPLEMENTATION: Final = "implementation"  # embedder, chunkers and file-id scheme
    POINT_FORMAT: Final = "point_format"  # which payload keys and vectors its chunks carry
    CONTENT_RULES: Final = "content_rules"  # which rules judged its files generated (policy/generated.py)
    MODEL_SOURCE: Final = "model_source"  # how to load its model again (after a model change)
    BRANCH: Final = "branch"  # the branch it was last seen tracking
    BRANCH_DELETED_AT: Final = "branch_deleted_at"  # when that branch was first seen gone
    MEMBERSHIP_BASE: Final = "membership_base"  # the base key it stands on (points/membership.py)
    MEMBERSHIP_BASE_COMMIT: Final = "membership_base_commit"
    MEMBERSHIP_BASE_FILES: Final = "membership_base_files"
    MEMBERSHIP_BASE_FACTS: Final = "membership_base_facts"
    MEMBERSHIP_DELTA: Final = "membership_delta"  # its delta point's id ("" when nothing changed)
    MEMBERSHIP_CHANGED: Final = "membership_changed"  # paths its delta holds

    # -- a label's delta point: the paths where it differs from its base ---------------------------
    PATHS: Final = "paths"
    FILES: Final = "files"  # the file id it holds at each of those paths ("" for none)

    # -- a worktree's overlay metadata (points/overlaymeta.py) ------------------------------------
    OVERLAY_KEY: Final = "key"  # the worktree's path, hashed
    WORKTREE: Final = "worktree"
    GENERATION: Final = "generation"
    CURRENT: Final = "current"  # the membership searches use
    DIRTY: Final = "dirty"  # every crawlable dirty path
    PENDING_MEMBERSHIPS: Final = "pending"  # memberships to remove


# The chunk fields a search hit carries (schema/search.Hit), in the order it prints them.
HIT_FIELDS = (
    Key.FILE_ID,
    Key.CHUNK_ORDINAL,
    Key.CHUNK_COUNT,
    Key.RELATIVE_PATH,
    Key.START_LINE,
    Key.END_LINE,
    Key.PACKAGE_NAME,
    Key.BREADCRUMB,
    Key.SYMBOL_NAME,
    Key.CHUNK_KIND,
    Key.TEXT,
)


class ChunkPayload(TypedDict):
    """A chunk point's payload (points/payloads.chunk_payload writes it)."""

    text: str
    source_type: str
    catalog: str
    label_id: str
    active_label_ids: list[str]
    embedder_id: str
    chunker_id: str
    blob_id: str
    content_hash: str
    embedded_text_hash: str
    file_id: str
    relative_path: str
    path_prefixes: list[str]
    lang: str
    package_name: str
    source_uri: str
    chunk_ordinal: int
    chunk_count: int
    start_line: int
    end_line: int
    symbol_name: str | None
    chunk_type: str | None
    chunk_kind: str
    breadcrumb: str
    file_complete: bool
    dense_pending: NotRequired[bool]
    defines: NotRequired[list[str]]


class OverlayPayload(TypedDict):
    """A worktree overlay's metadata point (points/overlaymeta.py)."""

    source_type: str
    catalog: str
    key: str
    worktree: str
    label: str
    branch: str | None
    generation: int
    current: str
    files: list[list[str]]  # [path, blob id, file id] of each dirty file
    dirty: list[str]
    pending: list[str]
    updated_at_unix_secs: int


class MembershipFacts(TypedDict):
    """The label metadata fields that describe its membership (members/derive.py's `fields`),
    written with the label's other facts in one upsert."""

    membership_base: str
    membership_base_commit: str
    membership_base_files: int
    membership_base_facts: str
    membership_delta: str
    membership_changed: int


class LabelFacts(TypedDict):
    """A label's metadata point (points/labelmeta.py); the facts its crawls record are optional:
    a label written by an older monodex lacks the newer ones."""

    source_type: str
    catalog: str
    label_id: str
    label: str
    commit_oid: str
    source_kind: str
    crawl_complete: bool
    updated_at_unix_secs: int
    target_commit_oid: NotRequired[str]
    commit_is_target: NotRequired[bool]
    mode: NotRequired[str]
    base_commit_oid: NotRequired[str]
    pending_commit_oids: NotRequired[list[str]]
    followed_change: NotRequired[bool]
    policy_fingerprint: NotRequired[str]
    policy: NotRequired[str]
    implementation: NotRequired[str]
    point_format: NotRequired[int]
    model_source: NotRequired[str]
    branch: NotRequired[str]
    branch_deleted_at: NotRequired[int]
    membership_base: NotRequired[str]
    membership_base_commit: NotRequired[str]
    membership_base_files: NotRequired[int]
    membership_base_facts: NotRequired[str]
    membership_delta: NotRequired[str]
    membership_changed: NotRequired[int]
