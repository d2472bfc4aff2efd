from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import onnx
import pytest
from monodex.indexer.embed import DEFAULT_EMBEDDER_ID, Embedder, ModelSpec, default_spec, spec_from_folder
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, pre_tokenizers

from monodex.errors import MonodexError, UsageError

JSON_TS = "export function loadJson(path: string): unknown { return JSON.parse(readFileSync(path, 'utf8')); }"
CSS = ".button { color: red; margin: 0 auto; border-radius: 4px; }"


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return Embedder(default_spec(), threads=2, batch_size=1)


def test_default_model_vectors(minilm: Embedder) -> None:
    assert minilm.spec.embedder_id == DEFAULT_EMBEDDER_ID and minilm.dim == 384
    v = minilm.embed_documents([JSON_TS, CSS, JSON_TS])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(v[0], v[2])
    q = minilm.embed_query("parse a json file")
    assert float(v[0] @ q) > float(v[1] @ q) + 0.2
    assert minilm.embed_documents([]).shape == (0, 384)
    assert minilm.embed_documents([""]).shape == (1, 384)


def test_batching_and_length_sorting_keep_results_and_order(minilm: Embedder) -> None:
    texts = [CSS, JSON_TS * 3, "short", JSON_TS, "x " * 400]
    one = minilm.embed_documents(texts)
    batched = Embedder(default_spec(), threads=2, batch_size=4).embed_documents(texts)
    assert np.allclose(one, batched, atol=1e-4)
    for i, t in enumerate(texts):
        assert np.allclose(minilm.embed_documents([t])[0], one[i], atol=1e-5)


def test_truncation_and_token_counts(minilm: Embedder) -> None:
    long = "identifier " * 2000
    assert minilm.count_tokens(long) == 256
    before = minilm.truncated
    assert minilm.embed_documents([long]).shape == (1, 384)
    assert minilm.truncated == before + 1
    assert minilm.count_tokens("hello world") == 4  # [CLS] hello world [SEP]


def _tiny_model(folder: Path, *, spec: dict[str, object]) -> Path:
    """An 8-dim 'model': Gather from an embedding table; inputs input_ids + attention_mask only."""
    vocab = {"[UNK]": 0, "[PAD]": 1, "json": 2, "parse": 3, "file": 4, "css": 5, "color": 6}
    table = np.random.default_rng(0).normal(size=(len(vocab), 8)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"]),
            helper.make_node("Identity", ["attention_mask"], ["mask_out"]),
        ],
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "s"]),
        ],
        [
            helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 8]),
            helper.make_tensor_value_info("mask_out", TensorProto.INT64, ["b", "s"]),
        ],
        [helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten())],
    )
    folder.mkdir(parents=True, exist_ok=True)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9  # what any recent onnxruntime reads
    onnx.save(model, folder / "model.onnx")
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "monodex-model.json").write_text(json.dumps(spec))
    return folder


def test_any_onnx_model_with_a_tokenizer_loads_from_a_folder(tmp_path: Path) -> None:
    folder = _tiny_model(
        tmp_path / "tiny", spec={"embedder_id": "tiny:v1", "max_tokens": 16, "query_prefix": "parse "}
    )
    spec = spec_from_folder(folder)
    assert spec.dim is None  # read from the graph
    emb = Embedder(spec, threads=1, batch_size=2)
    assert emb.dim == 8 and emb.inputs == {"input_ids", "attention_mask"}
    v = emb.embed_documents(["json file", "css color", "json"])
    assert v.shape == (3, 8) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    q = emb.embed_query("file json")  # "parse " is prefixed
    assert not np.allclose(q, emb.embed_documents(["file json"])[0])


def test_cls_pooling_without_normalization(tmp_path: Path) -> None:
    folder = _tiny_model(
        tmp_path / "tiny",
        spec={"embedder_id": "tiny:v1", "max_tokens": 16, "dim": 8, "pooling": "cls", "normalize": False},
    )
    emb = Embedder(spec_from_folder(folder), threads=1)
    first, whole = emb.embed_documents(["json css", "json"])
    assert np.allclose(first, whole)  # cls pooling = the first token's vector, unnormalized


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ({"max_tokens": 16}, "embedder_id: is required"),
        ({"embedder_id": "x", "max_tokens": "16"}, "max_tokens: expected an integer"),
        ({"embedder_id": "x", "max_tokens": 16, "pooling": "max"}, "unknown pooling"),
        ({"embedder_id": "x", "max_tokens": 16, "extra": 1}, "unknown field 'extra'"),
    ],
)
def test_bad_model_descriptions(tmp_path: Path, spec: dict[str, object], needle: str) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec=spec)
    with pytest.raises(UsageError) as info:
        spec_from_folder(folder)
    assert needle in info.value.problem


def test_missing_files_and_damaged_model(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="monodex-model.json"):
        spec_from_folder(tmp_path)
    good = default_spec()
    damaged = tmp_path / "model.onnx"
    shutil.copy(good.model_path, damaged)
    with damaged.open("r+b") as fh:
        fh.seek(1000)
        fh.write(b"\xff\xff\xff\xff")
    spec = ModelSpec(**{**good.__dict__, "model_path": damaged})
    with pytest.raises(MonodexError) as info:
        Embedder(spec)
    assert "sha256" in info.value.problem and "reinstall" in info.value.hint
