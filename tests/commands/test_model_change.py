"""A model change (issue 16): the new model's chunks fill under new ids in a collection of their
own, and the previous model's vectors keep answering until the new ones are complete."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from monodex.indexer.ops import background
from monodex.indexer.session import Session
from monodex.indexer.store import collections

from monodex.disk import paths
from monodex.runner import spool
from monodex.settings import config

SEARCH = (
    "search",
    "--catalog",
    "acme",
    "--label",
    "main",
    "--text",
    "retry a request with backoff",
    "--json",
)
CRAWL = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")


def _use_model(folder: Any) -> None:
    p = paths.resolve()
    cfg = config.load(p)
    config.save(p, replace(cfg, embedder=replace(cfg.embedder, model=str(folder))))


def test_the_previous_models_vectors_answer_until_the_new_ones_are_complete(  # type: ignore[no-untyped-def]
    monorepo, run_json, tiny_model_folder
) -> None:
    code, before, err = run_json(*CRAWL)
    assert code == 0 and before["chunks_pending"] == 0, err
    _, old, _ = run_json(*SEARCH)
    assert "served_by" not in old and old["results"][0]["relative_path"] == "libraries/net/src/retry.ts"

    _use_model(tiny_model_folder)
    p = paths.resolve()
    with Session(config.load(p), p) as s:  # the runner, starting now, would queue the refresh
        assert s.qdrant.collection == collections.name_for("monodex", "tiny:v1")
        queue = spool.default(p.state_dir)
        assert background.queue_model_change(s, queue) == ["acme:main"]
        assert [r.key for r in queue.requests_for("acme:main")] == ["acme:main"]

    code, moved, err = run_json(*CRAWL[:-1], "--no-wait-dense", "--json")  # phase one, new ids
    assert code == 0 and moved["mode"] == "full" and moved["chunks_pending"] == before["chunks_embedded"], err
    code, during, err = run_json(*SEARCH)
    assert code == 0, err
    served = during["served_by"]
    assert served["collection"] == "monodex" and served["embedder_id"] == "all-minilm-l6-v2-int8:v1"
    assert served["new_model_coverage"] == 0.0 and "previous model" in during["notes"][0]
    assert [r["relative_path"] for r in during["results"]] == [r["relative_path"] for r in old["results"]]
    assert during["dense_coverage"] == 1.0  # of what answered: the previous model's, complete

    code, filled, err = run_json(*CRAWL[:-1], "--wait-dense", "--json")
    assert code == 0 and filled["chunks_pending"] == 0, err
    code, after, err = run_json(*SEARCH)
    assert code == 0 and "served_by" not in after and after["dense_coverage"] == 1.0, err
    with Session(config.load(p), p) as s:  # the new collection's vectors are the new model's: 8 dims
        info = s.store.info()
        assert info is not None and info.dim == 8 and info.embedder_id == "tiny:v1"


def test_gc_old_models_lists_the_previous_collection_and_removes_it_once_nothing_needs_it(  # type: ignore[no-untyped-def]
    monorepo, run_json, tiny_model_folder
) -> None:
    assert run_json(*CRAWL)[0] == 0
    code, none, err = run_json("gc", "--old-models", "--json")
    assert code == 0 and none["collections"] == [], err
    _use_model(tiny_model_folder)
    p = paths.resolve()
    new = collections.name_for("monodex", "tiny:v1")
    assert run_json(*CRAWL[:-1], "--no-wait-dense", "--json")[0] == 0  # new model: phase one only
    code, listed, err = run_json("gc", "--old-models", "--dry-run", "--json")
    assert code == 0, err
    [old] = listed["collections"]
    assert old["collection"] == "monodex" and old["embedder_id"] == "all-minilm-l6-v2-int8:v1"
    assert old["bytes"] > 100_000 and old["labels"] == ["acme:main"] and old["answering"] == ["acme:main"]
    doctor = {c["check"]: c for c in run_json("doctor", "--json")[1]["checks"]}
    assert (
        doctor["old models"]["level"] == "warn" and "monodex gc --old-models" in doctor["old models"]["hint"]
    )
    code, kept, err = run_json("gc", "--old-models")  # it still answers acme:main: never removed
    assert code == 0 and "kept: answers acme:main" in kept, err
    assert (p.shard_dir / "monodex").is_dir()
    assert "served_by" in run_json(*SEARCH)[1]

    assert run_json(*CRAWL[:-1], "--wait-dense", "--json")[0] == 0  # the new model's vectors complete
    code, gone, err = run_json("gc", "--old-models", "--json")
    assert code == 0 and gone["collection"] == new and gone["collections"][0]["answering"] == [], err
    assert not (p.shard_dir / "monodex").exists() and config.load(p).qdrant.collection == new
    code, after, err = run_json(*SEARCH)
    assert code == 0 and "served_by" not in after, err
    assert after["results"][0]["relative_path"] == "libraries/net/src/retry.ts"
    assert run_json("gc", "--old-models", "--json")[1]["collections"] == []
    assert "old models" not in {c["check"] for c in run_json("doctor", "--json")[1]["checks"]}


def test_gc_old_models_never_runs_in_the_runner(monorepo, start_runner) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    start_runner(drain_seconds=0.5)
    done = subprocess.run(
        [sys.executable, "-m", "monodex", "gc", "--old-models"], capture_output=True, text=True
    )
    assert done.returncode == 2 and "the runner holds the index" in done.stderr and "stop it" in done.stderr
