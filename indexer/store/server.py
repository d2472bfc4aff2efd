"""A Qdrant server (or cluster) through qdrant-client: the only importer of qdrant_client.

`QdrantClient(":memory:")` runs this same adapter code in tests (local mode is far too slow for
real use: 1,100 ms per filtered query at 50,000 points, measured; see DESIGN.md).

The collection's embedder_id and dim live in its `metadata` (recent servers; qdrant-client 1.20's
local mode keeps it too). A server without collection metadata reads back embedder_id None, and
then only the dimension is checked: no reserved point is ever written (two kinds of point only)."""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import httpx  # qdrant-client's transport: its errors say whether the server answered at all
from monodex.indexer.store import sidecar
from monodex.indexer.store.base import (
    BOOL_INDEXES,
    DENSE,
    INTEGER_INDEXES,
    KEYWORD_INDEXES,
    LEXICAL,
    RRF_K,
    CollectionInfo,
    Condition,
    Filter,
    IsEmpty,
    Match,
    MatchAny,
    Point,
    Record,
    Scored,
    SparseVector,
)
from qdrant_client import QdrantClient
from qdrant_client import models as m
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from monodex.errors import MonodexError
from monodex.schema.payload import Key
from monodex.settings.config import redact, redacted_url


def _condition(c: Condition) -> Any:
    if isinstance(c, Match):
        return m.FieldCondition(key=c.key, match=m.MatchValue(value=c.value))
    if isinstance(c, MatchAny):
        return m.FieldCondition(key=c.key, match=m.MatchAny(any=list(c.values)))
    if isinstance(c, IsEmpty):
        return m.IsEmptyCondition(is_empty=m.PayloadField(key=c.key))
    if isinstance(c, Filter):
        return _filter(c) or m.Filter()
    raise TypeError(c)


def _filter(f: Filter) -> m.Filter | None:
    if not f.must and not f.must_not and not f.should:
        return None
    return m.Filter(
        must=[_condition(c) for c in f.must] or None,
        must_not=[_condition(c) for c in f.must_not] or None,
        should=[_condition(c) for c in f.should] or None,
    )


def _sparse(s: SparseVector) -> m.SparseVector:
    return m.SparseVector(indices=list(s.indices), values=list(s.values))


def _dense(vector: Any) -> list[float] | None:
    if isinstance(vector, dict) and DENSE in vector:
        return [float(x) for x in vector[DENSE]]
    return None


def _is_qdrant_reply(content: bytes) -> bool:
    """Qdrant's errors are JSON with a "status" object; another server's are pages or nothing."""
    try:
        body = json.loads(content)
    except ValueError:
        return False
    return isinstance(body, dict) and "status" in body


def translate(exc: Exception, *, url: str, api_key_env: str, secret: str | None = None) -> MonodexError:
    """A qdrant-client failure as problem + next step; never a raw page of HTML. `url` is shown
    as given (redacted by the caller); `secret` is the raw URL, scrubbed from the client's text."""
    key_hint = f"the API key is read from the environment variable {api_key_env} (qdrant.api_key_env)" + (
        "" if os.environ.get(api_key_env) else ", which is not set"
    )
    if isinstance(exc, UnexpectedResponse) and exc.status_code in (401, 403):
        return MonodexError(f"Qdrant at {url} refused the request (HTTP {exc.status_code})", key_hint)
    if isinstance(getattr(exc, "source", None), httpx.ConnectError | httpx.TimeoutException):
        why = "connection refused" if isinstance(exc.source, httpx.ConnectError) else "timed out"  # type: ignore[attr-defined]
        return MonodexError(
            f"Qdrant at {url} does not answer ({why})",
            "start the Qdrant server, or check qdrant.url in config.json (host and port)",
        )
    not_qdrant = isinstance(exc, ResponseHandlingException | json.JSONDecodeError) or (
        isinstance(exc, UnexpectedResponse) and not _is_qdrant_reply(exc.content)
    )
    if not_qdrant:
        status = f"HTTP {exc.status_code}" if isinstance(exc, UnexpectedResponse) else "no Qdrant JSON"
        return MonodexError(
            f"{url} answers, but not as a Qdrant server ({status})",
            "check qdrant.url in config.json: the Qdrant REST endpoint, e.g. http://localhost:6333",
        )
    first = redact(str(exc).splitlines()[0][:200] if str(exc) else "", secret)
    return MonodexError(
        f"Qdrant request to {url} failed: {type(exc).__name__}: {first}",
        f"check qdrant.url in config.json and that the server is up; {key_hint}",
    )


class ServerStore:
    def __init__(
        self, client: QdrantClient, collection: str, *, url: str = "", api_key_env: str = "QDRANT_API_KEY"
    ) -> None:
        self.client = client
        self.collection = collection
        self.url, self.api_key_env = url, api_key_env  # the raw URL: shown only through redacted_url

    @classmethod
    def from_url(
        cls, url: str, api_key: str | None, collection: str, *, api_key_env: str = "QDRANT_API_KEY"
    ) -> ServerStore:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "api key used with an insecure connection" on http
            client = QdrantClient(url=url, api_key=api_key, timeout=60, check_compatibility=False)
            return cls(client, collection, url=url, api_key_env=api_key_env)

    def _call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except MonodexError:
            raise
        except Exception as exc:  # network, HTTP and validation errors of every transport
            shown = redacted_url(self.url) if self.url else "the Qdrant server"
            raise translate(exc, url=shown, api_key_env=self.api_key_env, secret=self.url) from exc

    def _exists(self) -> bool:
        return bool(self._call(self.client.collection_exists, self.collection))

    def ensure_collection(self, *, dim: int, embedder_id: str) -> None:
        info = self.info()
        if info is not None:
            sidecar.check(
                self.collection,
                have_dim=info.dim,
                have_embedder=info.embedder_id,
                dim=dim,
                embedder_id=embedder_id,
            )
            # Idempotent on a server; adds indexes that collections made by older versions lack.
            for key in KEYWORD_INDEXES:
                self._call(
                    self.client.create_payload_index, self.collection, key, m.PayloadSchemaType.KEYWORD
                )
            for key in BOOL_INDEXES:
                self._call(self.client.create_payload_index, self.collection, key, m.PayloadSchemaType.BOOL)
            return
        self._call(
            self.client.create_collection,
            self.collection,
            vectors_config={DENSE: m.VectorParams(size=dim, distance=m.Distance.COSINE)},
            sparse_vectors_config={LEXICAL: m.SparseVectorParams(modifier=m.Modifier.IDF)},
            metadata={"embedder_id": embedder_id, "dim": dim},
        )
        for key in KEYWORD_INDEXES:
            self._call(self.client.create_payload_index, self.collection, key, m.PayloadSchemaType.KEYWORD)
        for key in INTEGER_INDEXES:
            self._call(self.client.create_payload_index, self.collection, key, m.PayloadSchemaType.INTEGER)
        for key in BOOL_INDEXES:
            self._call(self.client.create_payload_index, self.collection, key, m.PayloadSchemaType.BOOL)

    def info(self) -> CollectionInfo | None:
        if not self._exists():
            return None
        got = self._call(self.client.get_collection, self.collection)
        vectors: Any = got.config.params.vectors
        dim = int(vectors[DENSE].size) if isinstance(vectors, dict) else int(vectors.size)
        meta: dict[str, Any] = dict(getattr(got.config, "metadata", None) or {})
        sparse = bool(got.config.params.sparse_vectors)
        return CollectionInfo(dim=dim, embedder_id=meta.get("embedder_id"), has_sparse=sparse)

    def upsert(self, points: Sequence[Point]) -> None:
        if not points:
            return
        structs = []
        for p in points:
            vec: dict[str, Any] = {} if p.dense is None else {DENSE: [float(x) for x in p.dense]}
            if p.sparse is not None and p.sparse.indices:
                vec[LEXICAL] = _sparse(p.sparse)
            structs.append(m.PointStruct(id=p.id, vector=vec, payload=p.payload))
        self._call(self.client.upsert, self.collection, structs, wait=True)

    def set_dense(self, vectors: Sequence[tuple[str, Sequence[float]]]) -> int:
        present = {r.id for r in self.retrieve([i for i, _ in vectors])}  # GC may have taken some
        kept = [(i, v) for i, v in vectors if i in present]
        if kept:
            pvs = [m.PointVectors(id=i, vector={DENSE: [float(x) for x in v]}) for i, v in kept]
            self._call(self.client.update_vectors, self.collection, points=pvs, wait=True)
            ids: list[Any] = [i for i, _ in kept]
            self._call(
                self.client.set_payload,
                self.collection,
                payload={Key.DENSE_PENDING: False},
                points=ids,
                wait=True,
            )
        return len(kept)

    def retrieve(self, ids: Sequence[str], *, with_vectors: bool = False) -> list[Record]:
        if not ids or not self._exists():
            return []
        recs = self._call(
            self.client.retrieve,
            self.collection,
            list(ids),
            with_payload=True,
            with_vectors=[DENSE] if with_vectors else False,
        )
        return [
            Record(str(r.id), dict(r.payload or {}), _dense(r.vector) if with_vectors else None) for r in recs
        ]

    def scroll(
        self,
        flt: Filter,
        *,
        with_vectors: bool = False,
        batch: int = 1000,
        payload_keys: Sequence[str] | None = None,
    ) -> Iterator[Record]:
        if not self._exists():
            return
        offset: Any = None
        with_payload: Any = list(payload_keys) if payload_keys is not None else True
        while True:
            recs, offset = self._call(
                self.client.scroll,
                self.collection,
                scroll_filter=_filter(flt),
                limit=batch,
                offset=offset,
                with_payload=with_payload,
                with_vectors=[DENSE] if with_vectors else False,
            )
            for r in recs:
                yield Record(str(r.id), dict(r.payload or {}), _dense(r.vector) if with_vectors else None)
            if offset is None or not recs:
                return

    def count(self, flt: Filter) -> int:
        if not self._exists():
            return 0
        return int(
            self._call(self.client.count, self.collection, count_filter=_filter(flt), exact=True).count
        )

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        if ids:
            self._call(self.client.set_payload, self.collection, payload=payload, points=list(ids), wait=True)

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            self._call(self.client.delete, self.collection, points_selector=list(ids), wait=True)

    def _query(
        self, *, query: Any, using: str | None, flt: Filter, limit: int, prefetch: Any = None
    ) -> list[Scored]:
        if not self._exists():
            return []
        res = self._call(
            self.client.query_points,
            self.collection,
            query=query,
            using=using,
            prefetch=prefetch,
            query_filter=_filter(flt),
            limit=limit,
            with_payload=True,
        )
        return [Scored(str(p.id), float(p.score), dict(p.payload or {})) for p in res.points]

    def search(self, vector: Sequence[float], flt: Filter, *, limit: int) -> list[Scored]:
        return self._query(query=[float(x) for x in vector], using=DENSE, flt=flt, limit=limit)

    def search_sparse(self, sparse: SparseVector, flt: Filter, *, limit: int) -> list[Scored]:
        return self._query(query=_sparse(sparse), using=LEXICAL, flt=flt, limit=limit)

    def query_hybrid(
        self,
        dense: Sequence[float],
        sparse: SparseVector,
        flt: Filter,
        *,
        limit: int,
        prefetch_limit: int,
        weights: tuple[float, float] = (1.0, 1.0),
    ) -> list[Scored]:
        f = _filter(flt)
        prefetch = [
            m.Prefetch(query=[float(x) for x in dense], using=DENSE, filter=f, limit=prefetch_limit),
            m.Prefetch(query=_sparse(sparse), using=LEXICAL, filter=f, limit=prefetch_limit),
        ]
        fusion = m.RrfQuery(rrf=m.Rrf(k=RRF_K, weights=list(weights)))
        return self._query(query=fusion, using=None, flt=flt, limit=limit, prefetch=prefetch)

    def uncompacted(self) -> tuple[int, int]:
        return 0, 0  # nothing waits for monodex to merge: the server optimizes its segments itself

    def optimize(self) -> None:
        return None  # the server optimizes its segments itself

    def roll(self) -> bool:
        return False  # the server holds the points, not this process

    def close(self) -> None:
        self._call(self.client.close)
