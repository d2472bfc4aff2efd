"""The embedder: an ONNX sentence-embedding model run with onnxruntime, tokenized with
tokenizers. The only importer of both (a layout test keeps them off the hook path).

numpy and onnxruntime are imported when something is embedded: a phase-one crawl only counts
tokens, and their imports were ~80 ms of a command that creates a label."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from monodex.indexer.embed.spec import SPEC_FILE, ModelSpec
from monodex.indexer.embed.stamp import check_files
from monodex.indexer.embed.workers import SessionPool
from tokenizers import Encoding, Tokenizer

from monodex.errors import MonodexError, UsageError

if TYPE_CHECKING:
    import numpy as np
    import onnxruntime as ort

FEEDABLE = ("input_ids", "attention_mask", "token_type_ids")


# Queries a process embeds with the unoptimized graph before it loads the optimized one: one
# search (a CLI call) must not pay the optimization, an agent's session of many should not pay
# the slower graph (gson's questions, 2 cores: 25.2 ms a query unoptimized on two threads, 7.7 ms
# optimized on one, 4.7 on two; loading 0.04 s against 0.2 s).
LIGHT_QUERIES = 5


class Embedder:
    """Length-sorted batched embedding; float32 vectors in input order.

    `calls` counts model runs, `texts_embedded` texts, `truncated` texts cut at max_tokens.
    """

    def __init__(
        self,
        spec: ModelSpec,
        *,
        threads: int = 2,
        batch_size: int = 1,
        workers: int = 1,
        background: bool = False,
        stamp_dir: Path | None = None,
    ) -> None:
        """`threads`: each session's intra-op threads; `workers`: sessions that embed a call's
        texts side by side (workers.py); `background`: their threads run at the lowest CPU
        priority (the runner's fill: a search or a refresh comes first)."""
        # 1 does the least work: on ~220-token chunks, 2 threads embed 38.5 chunks/s at batch 1, 36.9
        # at 4, 33.6 at 8, 30.6 at 16 (medians of 5), while peak RSS grows from 332 to 569 MB
        # (bench/embed.py).
        self.batch_size = max(1, batch_size)
        self.calls = 0
        self.texts_embedded = 0
        self.truncated = 0
        check_files(spec, stamp_dir=stamp_dir)  # stamp_dir: Paths.model_stamp_dir of the caller
        self.tokenizer, self._pad_id = _tokenizer(spec)
        self._specials = self.tokenizer.num_special_tokens_to_add(False)
        self._plain: Tokenizer | None = None
        self._threads = threads
        # A query is one text: the session embedding it gets every core the sessions share. With
        # two sessions of one thread each (2 cores, issue 36), a query on one thread took 29.6 ms
        # against 24.4 ms on two (p50, gson's questions).
        self.query_threads = threads * max(1, workers)
        self.queries = 0  # queries embedded: a process that keeps asking gets the optimized graph
        self._pool = (
            SessionPool(
                workers, lambda: self._opened(optimize=True), lambda: self.session, background=background
            )
            if workers > 1
            else None
        )
        self._session: ort.InferenceSession | None = None
        self._light: ort.InferenceSession | None = None  # for queries until the optimized one loads
        self._inputs: tuple[str, ...] = ()
        self._output = ""
        self.spec = spec
        if spec.dim is None:  # only the graph (or one inference) tells
            self.spec = replace(spec, dim=self._resolve_dim(spec))
        elif spec.sha256 is None:  # a folder's declared dim, checked against its graph now
            self.load()
        # else a pinned file (the shipped default): its graph was checked when the spec was
        # written, and a phase-one crawl, a lexical search or token counting never load it

    @property
    def session(self) -> ort.InferenceSession:
        """The ONNX session (0.2 s to load); a declared dim is checked against the graph as it loads."""
        if self._session is None:
            self._session = self._opened(optimize=True)
            self._light = None
        return self._session

    def _query_session(self) -> ort.InferenceSession:
        """A query is one short text. The unoptimized graph loads in 0.03 s and answers it in
        ~45 ms; optimizing the graph takes 0.25 s (2 cores) and pays off only over many texts.
        The vector is the same (the optimizations rewrite the graph exactly: cosine 1.0 against
        the optimized session's). A process that has the optimized session (the runner, a fill)
        uses it."""
        if self._session is not None:
            return self._session
        if self.queries >= LIGHT_QUERIES:
            # a process that keeps asking (an agent's MCP server, `monodex eval`): the optimized
            # graph answers a query in 5-8 ms against 25 ms, and its 0.2 s load is paid back by
            # the tenth query
            return self.session
        if self._light is None:
            self._light = self._opened(optimize=False, threads=self.query_threads)
        return self._light

    def _opened(self, *, optimize: bool, threads: int | None = None) -> ort.InferenceSession:
        session = _session(self.spec.model_path, threads or self._threads, optimize=optimize)
        self._inputs = _inputs(session, self.spec.model_path)
        self._output = _output(session)
        self._graph_dim(session)
        return session

    def close(self) -> None:
        """Let the sessions go (the pool's threads end); a later call opens them again."""
        if self._pool is not None:
            self._pool.close()
        self._session = self._light = None

    @property
    def parallel(self) -> int:
        """Texts embedded at once (sessions side by side): a caller that yields between slices
        of texts sizes them by it."""
        return self._pool.workers if self._pool is not None else 1

    @property
    def inputs(self) -> tuple[str, ...]:
        """The graph inputs fed (loads the model)."""
        self.load()
        return self._inputs

    @property
    def output(self) -> str:
        """The graph output read (loads the model)."""
        self.load()
        return self._output

    def load(self) -> None:
        """Load the model now (the runner does, before its first query)."""
        self.session  # noqa: B018

    @property
    def dim(self) -> int:
        assert self.spec.dim is not None  # declared, or resolved in __init__
        return self.spec.dim

    def count_tokens(self, text: str) -> int:
        """Tokens in `text` with special tokens, before truncation (so > max_tokens means cut)."""
        e = self._encode([text])[0]
        return len(e.ids) + sum(len(o.ids) - self._specials for o in e.overflowing)

    def count_plain(self, text: str) -> int:
        """Tokens of `text` as the model reads it, without special tokens or truncation: what a
        token budget for an agent's context should count."""
        if self._plain is None:
            plain = Tokenizer.from_str(self.tokenizer.to_str())
            plain.no_truncation()
            plain.no_padding()
            self._plain = plain
        return len(self._plain.encode(text, add_special_tokens=False).ids)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """[len(texts), dim] float32, document_prefix applied; long texts silently truncated."""
        return self._embed([self.spec.document_prefix + t for t in texts], self.session)

    def embed_query(self, text: str) -> np.ndarray:
        """[dim] float32 with query_prefix applied."""
        result: np.ndarray = self._embed([self.spec.query_prefix + text], self._query_session())[0]
        self.queries += 1
        return result

    def _embed(self, texts: list[str], session: ort.InferenceSession) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._encode(texts)
        self.truncated += sum(1 for e in encodings if e.overflowing)
        # Sorted by length, a batch pads to similar lengths (padding is wasted compute).
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[start : start + self.batch_size] for start in range(0, len(order), self.batch_size)]
        if self._pool is not None and session is self._session and len(batches) > 1:
            runs = self._pool.map(lambda own, idx: self._run([encodings[i] for i in idx], own), batches)
        else:
            runs = (self._run([encodings[i] for i in idx], session) for idx in batches)
        for idx, vectors in zip(batches, runs, strict=True):
            out[idx] = vectors
        self.texts_embedded += len(texts)
        return out

    def _encode(self, texts: list[str]) -> list[Encoding]:
        try:
            return self.tokenizer.encode_batch(texts)
        except Exception as exc:  # tokenizers raises plain Exception
            raise MonodexError(f"tokenizing failed: {exc}", f"check {self.spec.tokenizer_path}") from exc

    def _run(self, encodings: list[Encoding], session: ort.InferenceSession) -> np.ndarray:
        import numpy as np

        ids, mask = _pad(encodings, self._pad_id)
        try:
            hidden = session.run([self._output], _feed(self._inputs, ids, mask))[0]
        except Exception as exc:  # onnxruntime's errors are untyped (Fail, InvalidArgument, ...)
            raise MonodexError(
                f"the embedding model {self.spec.model_path} failed: {exc}",
                "check that it is a sentence-embedding model taking token ids",
            ) from exc
        self.calls += 1  # several sessions' threads may count at once: only a statistic
        pooled = _pool(np.asarray(hidden, dtype=np.float32), mask, self.spec)
        if pooled.shape[1] != self.spec.dim:  # a declared dim the graph's dynamic shape could not confirm
            raise UsageError(
                f"{self.spec.model_path} outputs {pooled.shape[1]} dimensions, not dim {self.spec.dim}",
                f"fix dim in {SPEC_FILE} (or leave it out)",
            )
        return pooled

    def _graph_dim(self, session: ort.InferenceSession) -> int | None:
        """The graph's output dimension, checked against a declared dim; None when dynamic."""
        shape = next(o.shape for o in session.get_outputs() if o.name == self._output)
        graph_dim = shape[-1] if isinstance(shape[-1], int) else None
        spec = self.spec
        if spec.dim is not None and graph_dim is not None and spec.dim != graph_dim:
            raise UsageError(
                f"{spec.model_path} outputs {graph_dim} dimensions, but its {SPEC_FILE} says dim {spec.dim}",
                f"fix dim in {SPEC_FILE} (or leave it out)",
            )
        return graph_dim

    def _resolve_dim(self, spec: ModelSpec) -> int:
        """An undeclared dim: the graph's, or (dynamic) one inference tells."""
        session = self.session
        if (graph_dim := self._graph_dim(session)) is not None:
            return graph_dim
        ids, mask = _pad(self._encode(["probe"]), self._pad_id)
        return int(session.run([self.output], _feed(self.inputs, ids, mask))[0].shape[-1])


def _tokenizer(spec: ModelSpec) -> tuple[Tokenizer, int]:
    """The tokenizer, truncating at max_tokens and not padding, and the id padding should use."""
    try:
        tok = Tokenizer.from_file(str(spec.tokenizer_path))
    except Exception as exc:  # tokenizers raises plain Exception for unreadable JSON
        raise MonodexError(f"cannot read {spec.tokenizer_path}: {exc}", "replace tokenizer.json") from exc
    # MiniLM's tokenizer.json bakes in Fixed-128 padding and 128 truncation for another use:
    # pad per batch ourselves (_pad), truncate at the model's limit. Keep its pad id: masked out
    # here, but a graph without attention_mask can only tell padding by its id.
    pad_id = int(tok.padding["pad_id"]) if tok.padding else _pad_token_id(tok)
    tok.no_padding()
    tok.enable_truncation(spec.max_tokens)
    return tok, pad_id


def _pad_token_id(tok: Tokenizer) -> int:
    ids = (tok.token_to_id(t) for t in ("[PAD]", "<pad>"))
    return next((i for i in ids if i is not None), 0)


def _session(model: Path, threads: int, *, optimize: bool = True) -> ort.InferenceSession:
    # Imported here: 32 ms that a phase-one crawl or a lexical search, which never run the
    # model, would pay at every start.
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, threads)
    opts.inter_op_num_threads = 1  # one graph at a time: a second pool only competes for the cores
    level = ort.GraphOptimizationLevel
    opts.graph_optimization_level = level.ORT_ENABLE_ALL if optimize else level.ORT_DISABLE_ALL
    opts.log_severity_level = 3  # warnings about unused initializers are noise for users
    try:
        return ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise MonodexError(
            f"cannot load the ONNX model {model}: {exc}", "the file is damaged or not ONNX: replace it"
        ) from exc


def _inputs(session: ort.InferenceSession, model: Path) -> tuple[str, ...]:
    """The graph's declared inputs; only these are fed (some models take no token_type_ids)."""
    names = tuple(i.name for i in session.get_inputs())
    unknown = [n for n in names if n not in FEEDABLE]
    if unknown or "input_ids" not in names:
        raise UsageError(
            f"{model} takes inputs {', '.join(names)}; monodex feeds only {', '.join(FEEDABLE)}",
            "export the model with input_ids (+ attention_mask, token_type_ids) as its inputs",
        )
    return names


def _output(session: ort.InferenceSession) -> str:
    """Token states: last_hidden_state by name (exports often add pooled outputs), else the first."""
    outputs = session.get_outputs()
    chosen = next((o for o in outputs if o.name == "last_hidden_state"), outputs[0])
    if len(chosen.shape) != 3:
        raise UsageError(
            f"the model's output {chosen.name} has shape {chosen.shape}, expected [batch, tokens, dim]",
            "export the model with token embeddings (last_hidden_state) as its output",
        )
    return str(chosen.name)


def _pad(encodings: list[Encoding], pad_id: int) -> tuple[np.ndarray, np.ndarray]:
    """Right-pad to the longest in the batch (none for a batch of one), mask 0 on padding."""
    import numpy as np

    width = max(1, max(len(e.ids) for e in encodings))
    ids = np.full((len(encodings), width), pad_id, dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = e.ids
        mask[row, : len(e.ids)] = 1
    return ids, mask


def _feed(inputs: tuple[str, ...], ids: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    import numpy as np

    arrays = {"input_ids": ids, "attention_mask": mask}
    return {name: arrays.get(name, np.zeros_like(ids)) for name in inputs}  # token_type_ids: all 0


def _pool(hidden: np.ndarray, mask: np.ndarray, spec: ModelSpec) -> np.ndarray:
    import numpy as np

    if spec.pooling == "cls":
        pooled = hidden[:, 0, :]
    else:
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
    if spec.normalize:
        pooled = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return pooled.astype(np.float32, copy=False)
