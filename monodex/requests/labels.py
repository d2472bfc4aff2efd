"""What the index holds and its upkeep: labels listed and removed, a catalog purged, garbage
collected, old models' collections, labels verified against git."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from monodex import names
from monodex.requests.fields import Asks, check_names
from monodex.schema.labels import (
    GcAnswer,
    LabelsAnswer,
    OldModelsAnswer,
    PurgedCatalog,
    RemovedLabel,
    VerifyAnswer,
)


@dataclass(frozen=True)
class LabelsRequest(Asks[LabelsAnswer]):
    """List the indexed labels, of one catalog or all."""

    OP: ClassVar[str] = "labels"
    WRITES: ClassVar[bool] = False

    catalog: str | None = None

    def __post_init__(self) -> None:
        if self.catalog is not None:
            names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class RemoveLabelRequest(Asks[RemovedLabel]):
    OP: ClassVar[str] = "labels-rm"
    WRITES: ClassVar[bool] = True

    catalog: str
    label: str

    def __post_init__(self) -> None:
        check_names(self.catalog, self.label)


@dataclass(frozen=True)
class PurgeCatalogRequest(Asks[PurgedCatalog]):
    OP: ClassVar[str] = "catalog-purge"
    WRITES: ClassVar[bool] = True

    catalog: str

    def __post_init__(self) -> None:
        names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class GcRequest(Asks[GcAnswer]):
    OP: ClassVar[str] = "gc"
    WRITES: ClassVar[bool] = True

    catalog: str
    dry_run: bool = False
    compact: bool = False  # then what the runner does nightly: Edge merges segments, builds HNSW

    def __post_init__(self) -> None:
        names.validate_catalog(self.catalog)


@dataclass(frozen=True)
class OldModelsRequest(Asks[OldModelsAnswer]):
    """The collections of models used before the configured one (`gc --old-models`). Runs only
    in the process that asks, with no runner up: it deletes what a runner holds open."""

    OP: ClassVar[str] = "old-models"
    WRITES: ClassVar[bool] = True

    dry_run: bool = False


@dataclass(frozen=True)
class VerifyRequest(Asks[VerifyAnswer]):
    OP: ClassVar[str] = "verify"
    WRITES: ClassVar[bool] = True

    catalog: str | None = None
    label: str | None = None
    repair: bool = False

    def __post_init__(self) -> None:
        if self.catalog is not None:
            names.validate_catalog(self.catalog)
        if self.label is not None:
            names.validate_label(self.label)
