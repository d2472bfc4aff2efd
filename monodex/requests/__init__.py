"""One typed request per operation, validated once, whichever surface built it.

The CLI builds requests from its flags, the MCP server from its tools' arguments and the runner
from the socket's wire (`parse`): one set of checks, one set of errors. A bad field raises
FieldError, which names the field by its request name; each surface spells it as its own flag or
parameter (`FieldError.spelled`), so an MCP client never reads about `--max-tokens`.
Stdlib and kernel only: the CLI and `monodex status` load this without the indexer.

The requests are grouped as their answers are in monodex/schema/ (search.py, compare.py,
labels.py, crawl.py, eval.py), with what they share in fields.py and the wire in wire.py; every
surface names them from here (`from monodex import requests as rq; rq.SearchRequest`)."""

from __future__ import annotations

from monodex.requests.compare import ContainingRequest, DiffRequest
from monodex.requests.crawl import CrawlRequest, RefreshRequest
from monodex.requests.eval import DEFAULT_EVAL_COMMITS, DEFAULT_EVAL_QUESTIONS, SPLITS, EvalRequest
from monodex.requests.fields import (
    DEFAULT_FRESH_SECONDS,
    DEFAULT_LIMIT,
    KINDS,
    LANG_ALIASES,
    LANGUAGES,
    MAX_QUERY_CHARS,
    MODES,
    SPOOL_SCHEMA,
    Asks,
    FieldError,
)
from monodex.requests.labels import (
    GcRequest,
    LabelsRequest,
    OldModelsRequest,
    PurgeCatalogRequest,
    RemoveLabelRequest,
    VerifyRequest,
)
from monodex.requests.search import SearchRequest, ViewRequest
from monodex.requests.wire import TYPES, Request, build, parse, to_wire

__all__ = [
    "DEFAULT_EVAL_COMMITS",
    "DEFAULT_EVAL_QUESTIONS",
    "DEFAULT_FRESH_SECONDS",
    "DEFAULT_LIMIT",
    "KINDS",
    "LANGUAGES",
    "LANG_ALIASES",
    "MAX_QUERY_CHARS",
    "MODES",
    "SPLITS",
    "SPOOL_SCHEMA",
    "TYPES",
    "Asks",
    "ContainingRequest",
    "CrawlRequest",
    "DiffRequest",
    "EvalRequest",
    "FieldError",
    "GcRequest",
    "LabelsRequest",
    "OldModelsRequest",
    "PurgeCatalogRequest",
    "RefreshRequest",
    "RemoveLabelRequest",
    "Request",
    "SearchRequest",
    "VerifyRequest",
    "ViewRequest",
    "build",
    "parse",
    "to_wire",
]
