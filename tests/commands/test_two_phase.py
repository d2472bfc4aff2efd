"""Two-phase refresh (issue 16): a label is searchable as soon as its chunks are stored with their
words; dense vectors fill in behind, and every answer says how far they are."""

from __future__ import annotations

from typing import Any

import numpy as np
from monodex.indexer.points.payloads import stored_embed_text
from monodex.indexer.store.base import PENDING, Match
from monodex.indexer.write import fill
from monodex.scheduler.runner import Runner

from monodex import names
from monodex.disk import paths
from tests.conftest import label_filter

LID = names.label_id("acme", "main")


def _search(run_json: Any, text: str, *more: str) -> tuple[int, Any, str]:
    return run_json("search", "--catalog", "acme", "--label", "main", "--text", text, *more, "--json")  # type: ignore[no-any-return]


def _label(run_json: Any, label: str = "main") -> dict[str, Any]:
    code, out, _ = run_json("labels", "--json")
    assert code == 0
    return next(r for r in out["labels"] if r["label"] == label)


def test_phase_one_is_searchable_by_words_and_the_fill_gives_the_models_own_vectors(
    monorepo, run_json, open_session
) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"
    )
    assert code == 0 and out["chunks_embedded"] == 0 and out["chunks_pending"] > 0
    row = _label(run_json)
    assert row["crawl_complete"] is True and row["dense_coverage"] == 0.0
    assert row["dense_pending"] == row["chunks"] == out["chunks_pending"]

    code, found, _ = _search(run_json, "fetchWithRetry backoff")
    assert code == 0 and found["results"][0]["relative_path"] == "libraries/net/src/retry.ts"
    assert found["dense_coverage"] == 0.0 and found["freshness"]["dense_coverage"] == 0.0
    assert found["mode"] == "lexical" and any("lexical" in n for n in found["notes"])

    # no runner: a plain crawl fills what phase one left, and says so
    code, out, _ = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0 and out["chunks_pending"] == 0 and out["files_embedded"] == 0
    assert out["dense"]["filled"] == row["chunks"] and out["chunks_embedded"] == out["dense"]["embedded"] > 0
    code, found, _ = _search(run_json, "retry a request with exponential backoff")
    assert found["dense_coverage"] == 1.0 and found["mode"] == "hybrid" and "notes" not in found

    with open_session() as s:  # the vector is the model's for the text the chunk says it embedded
        recs = list(s.store.scroll(label_filter(s.store, LID), with_vectors=True))
        assert recs and all(r.payload[PENDING] is False and r.dense is not None for r in recs)
        want = s.engine.embed_documents([stored_embed_text(r.payload) for r in recs])
        assert np.allclose(np.array([r.dense for r in recs]), want, atol=1e-5)


# A question for each code file of the monorepo, by its own words: which two chunks the partial
# fill below gives a vector depends on their point ids, so the test asks about a file left waiting.
ASKS = {
    "libraries/terminal/src/colors.ts": ("colorize ANSI escape codes terminal", "colorize ANSI"),
    "libraries/net/src/retry.ts": ("retry HTTP request exponential backoff", "retry backoff"),
    "libraries/config/src/ConfigLoader.ts": ("load and validate the JSON configuration file", "ConfigLoader"),
}


def test_a_partly_filled_label_hides_no_chunk_from_hybrid_search(monorepo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json")
    with open_session() as s:
        report = fill.fill(s.store, s.engine, LID, round_size=2, rounds=1)
        assert report.filled == 2 and report.pending_after > 0 and report.stopped
        pending_paths = {
            str(r.payload["relative_path"])
            for r in s.store.scroll(label_filter(s.store, LID, Match(PENDING, True)))
        }
    waiting = next(p for p in ASKS if p in pending_paths)  # two chunks filled: a code file waits
    question, short = ASKS[waiting]
    code, found, _ = _search(run_json, question)
    assert code == 0 and found["mode"] == "hybrid" and 0.0 < found["dense_coverage"] < 1.0
    assert any("cover" in n for n in found["notes"])
    hybrid = [r["relative_path"] for r in found["results"]]
    assert waiting in hybrid[:3]  # found by its words alone
    _, dense, _ = _search(run_json, short, "--mode", "dense")
    # the dense list alone cannot see a chunk without its vector: hybrid adds it by its words
    assert waiting not in [r["relative_path"] for r in dense["results"]]
    assert any("sees only" in n for n in dense["notes"])


def test_verify_and_gc_leave_chunks_that_wait_for_their_vector(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json")
    before = _label(run_json)["dense_pending"]
    code, out, _ = run_json("verify", "--json")
    assert code == 0 and out["labels"][0]["ok"] is True and out["labels"][0]["dense_pending"] == before
    code, out, _ = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0 and out["deleted_chunks"] == 0
    assert _label(run_json)["dense_pending"] == before > 0
    _, out, _ = run_json("doctor", "--json")  # no runner: someone has to add them
    index = next(c for c in out["checks"] if c["check"] == "index")
    assert index["level"] == "warn" and "dense vector" in index["detail"] and "--wait-dense" in index["hint"]


def test_a_branch_embeds_only_texts_no_label_has_a_vector_for(monorepo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    monorepo.git("checkout", "-q", "-b", "feature")
    retry = monorepo.path / "libraries/net/src/retry.ts"
    monorepo.write("libraries/net/src/retry.ts", retry.read_text().replace("delayMs *= 2", "delayMs *= 3"))
    monorepo.write(
        "libraries/net/src/jitter.ts", "/** Adds random jitter to a delay. */\nexport const j = 1;\n"
    )
    monorepo.commit("jitter")
    code, out, _ = run_json(
        "crawl", "--catalog", "acme", "--label", "feature", "--commit", "HEAD", "--no-wait-dense", "--json"
    )
    assert code == 0
    with open_session() as s:
        main_texts = {
            r.payload["embedded_text_hash"]
            for r in s.store.scroll(label_filter(s.store, LID), payload_keys=("embedded_text_hash",))
        }
        feature = list(s.store.scroll(label_filter(s.store, names.label_id("acme", "feature"))))
    new = [r for r in feature if r.payload["embedded_text_hash"] not in main_texts]
    assert new and out["chunks_pending"] == sum(1 for r in new if r.payload[PENDING] is True) == len(new)
    assert all(r.payload[PENDING] is False for r in feature if r not in new)


def test_search_fresh_waits_for_phase_one_and_wait_dense_for_the_vectors(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    monorepo.write(
        "libraries/net/src/jitter.ts", "/** Adds random jitter to a retry delay. */\nexport const j = 1;\n"
    )
    monorepo.commit("jitter")
    code, found, _ = _search(run_json, "random jitter", "--fresh", "60")
    assert code == 0 and found["freshness"]["fresh"] is True and found["dense_coverage"] < 1.0
    assert found["results"][0]["relative_path"] == "libraries/net/src/jitter.ts"
    code, found, _ = _search(run_json, "random jitter", "--fresh", "60", "--wait-dense")
    wait = found["freshness"]["wait"]
    assert code == 0 and wait["dense_reached"] is True and wait["reached"] is True
    assert found["dense_coverage"] == 1.0


def test_the_runners_fill_job_yields_to_refreshes_and_status_shows_its_eta(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    from monodex.runner import spool

    run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json")
    p = paths.resolve()
    runner = Runner(p)
    try:
        spool.default(p.state_dir).enqueue(  # a refresh is due: phase two waits for it
            spool.Request(
                catalog="acme",
                label="main",
                repo=str(monorepo.path),
                ref="refs/heads/main",
                commit=monorepo.head(),
                hook="post-commit",
                created_at=spool.now(),
            )
        )
        runner.fill_once()
        assert fill.pending(runner.session.store, LID) > 0
        runner.drain_once()
        runner.fill_once()
        assert fill.pending(runner.session.store, LID) == 0
        state = runner.state.read()
        assert state["fill"]["ok"] is True and state["filling"]["pending"] == 0
    finally:
        runner.session.close()
    code, out, _ = run_json("status", "--json")
    row = next(r for r in out["labels"] if r["label"] == "main")
    assert row["dense"] == {"coverage": 1.0, "pending": 0, "eta_seconds": None, "state": "complete"}
