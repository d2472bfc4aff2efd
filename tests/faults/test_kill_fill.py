"""Crash safety of phase two (issue 16): the runner SIGKILLed while its fill job adds dense vectors,
at a point chosen by what it has done (some rounds filled, some left), not by a random draw."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from typing import Any

import numpy as np
from monodex.indexer.points.payloads import stored_embed_text
from monodex.indexer.session import Session
from monodex.indexer.write import fill

from monodex import names
from monodex.disk import paths
from monodex.main import main
from monodex.runner import rpc
from monodex.settings import config
from tests.conftest import label_filter

MDX = [sys.executable, "-m", "monodex"]
LID = names.label_id("acme", "main")
WORDS = "parse render cache token branch label commit crawl spool index query vector merge".split()


def _module(f: int, rng: random.Random) -> str:
    out = []
    for i in range(10):
        a, b = rng.sample(WORDS, 2)
        out.append(
            f"/** {a.title()} the {b} for module {f}, step {i}. */\n"
            f"export function {a}{b.title()}{f}x{i}(input: string): string {{\n"
            f"  const parts = input.split('{b}{i}');\n"
            f"  return parts.map((x) => x.trim() + '{a}{f}').join('/');\n}}\n"
        )
    return "\n".join(out)


def _row_when(wanted: Any, timeout: float) -> dict[str, Any]:
    """The label's row as the runner answers it, once wanted(row) holds (polled every 50 ms)."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            answer = rpc.call(paths.resolve(), "labels", {})
        except OSError:  # a runner still starting
            answer = None
        last = next((r for r in (answer or {}).get("labels", ()) if r["label"] == "main"), None)
        if last is not None and wanted(last):
            return last
        time.sleep(0.05)
    raise AssertionError(f"not reached in {timeout:.0f} s; last row: {last}")


def test_a_runner_killed_during_phase_two_resumes_and_every_vector_is_the_models(
    git_repo, start_runner, capsys
) -> None:  # type: ignore[no-untyped-def]
    rng = random.Random(16)
    repo = git_repo({f"src/mod{f}.ts": _module(f, rng) for f in range(75)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    capsys.readouterr()
    crawl = ["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"]
    assert main(crawl) == 0
    total = json.loads(capsys.readouterr().out)["chunks_pending"]
    assert total > 2 * fill.ROUND  # rounds left after the first: the kill lands inside phase two

    killed = subprocess.Popen(
        [*MDX, "runner", "--drain-seconds", "0.5"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        # the fill job's first round is in (minutes on a loaded machine): kill it in the middle of the rest
        seen = _row_when(lambda r: 0 < r["dense_pending"] < total, 900)
        killed.send_signal(signal.SIGKILL)
        assert killed.wait(timeout=60) == -signal.SIGKILL
    finally:
        if killed.poll() is None:
            killed.kill()
            killed.wait()
    assert seen["crawl_complete"] and seen["commit_oid"] == repo.head()  # phase one was done

    runner = start_runner(0.5)
    row = _row_when(lambda r: r["dense_pending"] == 0, 1200)
    assert row["dense_coverage"] == 1.0 and row["chunks"] == total and row["commit_oid"] == repo.head()
    verified = subprocess.run([*MDX, "verify", "--json"], capture_output=True, text=True)
    assert verified.returncode == 0, verified.stderr
    (result,) = json.loads(verified.stdout)["labels"]
    assert result["ok"] is True and result["dense_pending"] == 0, result
    runner.send_signal(signal.SIGTERM)  # the shard is the runner's until it exits
    assert runner.wait(timeout=120) == 0

    p = paths.resolve()
    with Session(config.load(p), p) as s:
        records = list(s.store.scroll(label_filter(s.store, LID), with_vectors=True))
        assert len(records) == total
        assert all(r.payload["dense_pending"] is False and r.dense is not None for r in records)
        picked = random.Random(0).sample(records, 24)  # the model's vector for the chunk's own text
        want = s.engine.embed_documents([stored_embed_text(r.payload) for r in picked])
        assert np.allclose(np.array([r.dense for r in picked]), want, atol=1e-5)
