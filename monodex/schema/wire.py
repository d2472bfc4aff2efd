"""Every answer of an operation, and the one way one becomes JSON: the runner's socket line and a
command's `--json` document are the same marshalling of the same typed answer."""

from __future__ import annotations

import json
from collections.abc import Mapping

from monodex.schema.compare import ContainingAnswer, DiffAnswer
from monodex.schema.crawl import CrawlAnswer
from monodex.schema.eval import EvalAnswer
from monodex.schema.labels import (
    GcAnswer,
    LabelsAnswer,
    OldModelsAnswer,
    PurgedCatalog,
    RemovedLabel,
    VerifyAnswer,
)
from monodex.schema.search import SearchAnswer, ViewAnswer

Answer = (
    SearchAnswer
    | DiffAnswer
    | ContainingAnswer
    | ViewAnswer
    | LabelsAnswer
    | GcAnswer
    | OldModelsAnswer
    | CrawlAnswer
    | RemovedLabel
    | PurgedCatalog
    | VerifyAnswer
    | EvalAnswer
)


def to_json(answer: Mapping[str, object]) -> str:
    """One line of JSON, keys in the order the answer was built (the order is part of the CLI
    contract: scripts and the golden answers read it), non-ASCII text kept as it is."""
    return json.dumps(answer, ensure_ascii=False)
