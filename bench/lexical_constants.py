"""BM25's constants for the lexical list, measured without rewriting an index (issue 34).

A chunk's lexical vector holds BM25's term-frequency part with fixed constants
(`points/lexical.py`: K1, B, AVG_TERMS; the header's words count as the code's do), and the
store weighs a query's words by their IDF. Trying other
constants on stored indexes would mean rewriting every chunk's vector, so this script searches a
client-side copy instead: every chunk of the label, its terms counted as `document_vector` counts
them, scored with Qdrant's IDF formula, in place of the store's lexical search; the rest of the
search is untouched. With today's constants the copy answers as the store does (`--check`).

Usage: .venv/bin/python bench/lexical_constants.py [--split tune] [--groups hand,second,short,phrase,pr]
       .venv/bin/python bench/lexical_constants.py --check colinhacks+zod

Prints each variant's mean per group (hand-written sets nDCG@10, pull requests R@10 and MRR@10)
and how many questions it moved up and down against today's constants. The bench indexes must be
crawled (`bench/answers.py --crawl`).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import math
import statistics
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import answers  # noqa: E402
from monodex.indexer.points import lexical, payloads  # noqa: E402
from monodex.indexer.store import edge  # noqa: E402
from monodex.indexer.store.base import Filter, Scored, SparseVector  # noqa: E402

# name -> (k1, b, mean terms (0: the label's own), weight of the header's words, the IDF's power);
# COORD: a chunk's score times the share of the query's words it has, to these powers
VARIANTS: dict[str, tuple[float, float, float, float, float]] = {
    "today": (lexical.K1, lexical.B, lexical.AVG_TERMS, 1.0, 1.0),
    "real mean": (lexical.K1, lexical.B, 0.0, 1.0, 1.0),
    "b 0.5": (lexical.K1, 0.5, lexical.AVG_TERMS, 1.0, 1.0),
    "b 0.9": (lexical.K1, 0.9, lexical.AVG_TERMS, 1.0, 1.0),
    "k1 0.8": (0.8, lexical.B, lexical.AVG_TERMS, 1.0, 1.0),
    "k1 2.0": (2.0, lexical.B, lexical.AVG_TERMS, 1.0, 1.0),
    "header x0.5": (lexical.K1, lexical.B, lexical.AVG_TERMS, 0.5, 1.0),
    "header x2": (lexical.K1, lexical.B, lexical.AVG_TERMS, 2.0, 1.0),
    "header x3": (lexical.K1, lexical.B, lexical.AVG_TERMS, 3.0, 1.0),
    "idf^0.7": (lexical.K1, lexical.B, lexical.AVG_TERMS, 1.0, 0.7),
    "idf^1.5": (lexical.K1, lexical.B, lexical.AVG_TERMS, 1.0, 1.5),
    "idf^2": (lexical.K1, lexical.B, lexical.AVG_TERMS, 1.0, 2.0),
}
COORD = {"words had ^0.5": 0.5, "words had ^1": 1.0}
_STORE_SEARCH = edge.EdgeStore.search_sparse
_STORE_SCROLL = edge.EdgeStore.scroll


class Copy:
    """Every chunk of a store as postings (term index -> chunk, term frequency), scored as BM25."""

    def __init__(self, store: edge.EdgeStore, header: float) -> None:
        self.store, self.header = store, header
        records = list(_STORE_SCROLL(store, Filter()))
        self.ids = [r.id for r in records]
        self.payloads = [r.payload for r in records]
        self.position = {i: n for n, i in enumerate(self.ids)}
        chunk, index, tf, length = [], [], [], []
        for n, r in enumerate(records):
            text = payloads.stored_embed_text(r.payload)
            body = str(r.payload.get("text") or "")
            head = text[: len(text) - len(body)] if text.endswith(body) else ""
            head_terms, body_terms = lexical.terms(head), lexical.terms(text[len(head) :])
            length.append(len(body_terms) + header * len(head_terms))
            counts: collections.Counter[str] = collections.Counter()
            for term in body_terms:
                counts[term] += 1.0
            for term in head_terms:
                counts[term] += header
            for term, count in counts.items():
                chunk.append(n)
                index.append(lexical._index(term))
                tf.append(count)
        order = np.argsort(np.array(index, dtype=np.int64), kind="stable")
        self.index = np.array(index, dtype=np.int64)[order]
        self.chunk = np.array(chunk, dtype=np.int64)[order]
        self.tf = np.array(tf, dtype=np.float64)[order]
        self.length = np.array(length, dtype=np.float64)
        self.n = len(records)
        self.mean = float(self.length[self.length > 0].mean()) if self.n else 1.0
        self.weight = self.tf
        self.power = 1.0
        self.coord = 0.0
        self.masks: dict[str, Any] = {}

    def constants(self, k1: float, b: float, mean: float, power: float, coord: float = 0.0) -> None:
        self.power = power  # a rare word weighs more (> 1) or less (< 1) than IDF says
        self.coord = coord
        avg = mean if mean > 0 else self.mean
        norm = k1 * (1 - b + b * self.length[self.chunk] / avg)
        self.weight = self.tf * (k1 + 1) / (self.tf + norm)

    def _mask(self, flt: Filter) -> Any:
        key = repr(flt)
        mask = self.masks.get(key)
        if mask is None:
            mask = np.zeros(self.n, dtype=bool)
            for r in _STORE_SCROLL(self.store, flt, payload_keys=()):
                at = self.position.get(r.id)
                if at is not None:
                    mask[at] = True
            self.masks[key] = mask
        return mask

    def search(self, sparse: SparseVector, flt: Filter, limit: int) -> list[Scored]:
        scores = np.zeros(self.n)
        matched = np.zeros(self.n, dtype=bool)
        words_had, words = np.zeros(self.n), 0
        for term, value in zip(sparse.indices, sparse.values, strict=True):
            lo, hi = np.searchsorted(self.index, term, "left"), np.searchsorted(self.index, term, "right")
            if hi <= lo:
                continue
            chunks = self.chunk[lo:hi]
            having = np.unique(chunks)  # two terms can hash alike: a chunk counts once
            idf = math.log((self.n - len(having) + 0.5) / (len(having) + 0.5) + 1) ** self.power  # Qdrant's
            np.add.at(scores, chunks, value * idf * self.weight[lo:hi])
            matched[chunks] = True
            if value >= 1.0:  # a word as written, not a base form's or a joined name's guess
                words += 1
                words_had[having] += 1
        if self.coord and words:
            scores = scores * (np.maximum(words_had, 1) / words) ** self.coord
        found = np.nonzero(self._mask(flt) & matched)[0]
        best = found[np.argsort(-scores[found], kind="stable")[:limit]]
        return [Scored(self.ids[i], float(scores[i]), dict(self.payloads[i])) for i in best]


_COPY: list[Copy] = []


@contextlib.contextmanager
def constants(
    k1: float, b: float, mean: float, header: float, power: float = 1.0, coord: float = 0.0
) -> Iterator[None]:
    """The stores' lexical search answered by a client-side copy with these constants."""

    def search_sparse(self: edge.EdgeStore, sparse: SparseVector, flt: Filter, *, limit: int) -> list[Scored]:
        if not _COPY or _COPY[0].store is not self or _COPY[0].header != header:
            _COPY[:] = [Copy(self, header)]  # one store at a time: a target's Session
        _COPY[0].constants(k1, b, mean, power, coord)
        return _COPY[0].search(sparse, flt, limit)

    edge.EdgeStore.search_sparse = search_sparse  # type: ignore[method-assign]
    try:
        yield
    finally:
        edge.EdgeStore.search_sparse = _STORE_SEARCH  # type: ignore[method-assign]
        _COPY.clear()


def check(name: str) -> None:
    """The copy with today's constants against the store: shared hits of the first 20."""
    t = answers.targets()[name]
    import json

    with answers.persistent_xdg(t["catalog"]):
        from monodex.indexer.points import filters, membership
        from monodex.indexer.session import Session

        from monodex.disk import paths
        from monodex.settings import config

        p = paths.resolve()
        with Session(config.load(p), p) as s:
            flt = filters.label_chunks(membership.of(s.store, f"{t['catalog']}:main"))
            shared, asked = 0, 0
            for q in json.loads(Path(t["file"]).read_text())["queries"]:
                vector = lexical.query_vector(q["query"], base_forms=True)
                a = {h.id for h in s.store.search_sparse(vector, flt, limit=20)}
                with constants(*VARIANTS["today"]):
                    b = {h.id for h in s.store.search_sparse(vector, flt, limit=20)}
                shared += len(a & b)
                asked += len(a)
            print(f"{name}: the copy shares {shared} of the store's {asked} first-20 hits")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--split", default="tune", choices=("tune", "test", "all"))
    ap.add_argument("--groups", default="hand,second,short,phrase,pr")
    ap.add_argument("--only", nargs="*", help="these variants (names as in VARIANTS)")
    ap.add_argument("--check", metavar="TARGET", help="compare the copy with the store on one target")
    args = ap.parse_args()
    if args.check:
        check(args.check)
        return
    groups = args.groups.split(",")
    targets = {
        name: t
        for name, t in answers.targets().items()
        if t["group"] in groups
        and (BENCH / ".work" / f"xdg-{t['catalog']}").exists()
        and not (
            args.split == "tune"
            and name.removeprefix("phrase-").removeprefix("short-").removeprefix("second-")
            in answers.HELD_OUT
        )
    }
    everything = {**VARIANTS, **{k: (*VARIANTS["today"][:4], 1.0, c) for k, c in COORD.items()}}
    chosen = {k: v for k, v in everything.items() if k == "today" or not args.only or k in args.only}
    rows: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for variant, (k1, b, mean, header, power, *coord) in chosen.items():
        with constants(k1, b, mean, header, power, *coord):
            rows[variant] = {
                n: answers.evaluate(n, t, args.split, "asof")["rows"] for n, t in targets.items()
            }
        print(f"{variant}: done", file=sys.stderr, flush=True)
    print("| variant | " + " | ".join(groups) + " | better / worse |")
    print("|---|" + "---|" * (len(groups) + 1))
    for variant in chosen:
        cells = []
        for g in groups:
            rr = [x for n, t in targets.items() if t["group"] == g for x in rows[variant][n]]
            if not rr:
                cells.append("-")
            elif g == "pr":
                cells.append(
                    f"{statistics.fmean(x['R@10'] for x in rr):.4f} / {statistics.fmean(x['MRR@10'] for x in rr):.4f}"
                )
            else:
                cells.append(f"{statistics.fmean(x['nDCG@10'] for x in rr):.4f}")
        better = worse = 0
        for n in targets:
            for a, b_ in zip(rows["today"][n], rows[variant][n], strict=True):
                better += b_["nDCG@10"] > a["nDCG@10"] + 1e-9
                worse += b_["nDCG@10"] < a["nDCG@10"] - 1e-9
        print(f"| {variant} | " + " | ".join(cells) + f" | {better} / {worse} |")


if __name__ == "__main__":
    main()
