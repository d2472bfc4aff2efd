"""Crash safety, quick: bench/sigkill.py's harness on a small synthetic repository. The runner is
SIGKILLed at seeded random points of full crawls and incremental refreshes (two-phase: phase one
moves the label, the fill job adds the dense vectors), restarted, and every label must converge
fully hybrid with `monodex verify` clean and no queued request lost. The full run (24 trials on
tiktok/sparo) is `bench/sigkill.py`; this is the same code, small enough for CI."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def sigkill(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """bench/sigkill.py as a module. sys.path and sys.modules are restored afterwards: bench/ has
    a hooks.py that must not shadow anything for the other tests."""
    monkeypatch.syspath_prepend(str(BENCH))  # sigkill.py imports its neighbour _common.py
    spec = importlib.util.spec_from_file_location("sigkill", BENCH / "sigkill.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "sigkill", module)  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop("_common", None)


def test_runner_killed_at_random_points_always_converges(sigkill: ModuleType, tmp_path: Path) -> None:
    bench = sigkill.setup(tmp_path, synthetic=(2, 6, 4), drain_seconds=0.3, edits=(6, 10))
    try:
        # Seed 193 draws the kills at 0.71 and 0.65 of the full crawls' calibrated duration (phase
        # one is under a second of it, the fill of ~60 chunks the rest) and at 0.14 and 0.43 of
        # the incremental refreshes' (the first while its requests are queued or claimed).
        results = sigkill.run_trials(bench, trials=4, seed=193, timeout=180)
        assert [r["kind"] for r in results] == ["full", "incremental"] * 2
        # A kill must land while there is work to lose: requests still queued or claimed. Under
        # load, a kill drawn from the calibrated duration can land after the drain took them;
        # then kills right after the commit (the hook's entry written, not yet drained) follow.
        rng = random.Random(193)
        for delay in (0.05, 0.1, 0.2):
            if sum(r["queued_at_kill"] for r in results) >= 1:
                break
            results.append(bench.trial("incremental", rng, 180, delay=delay))
        # The same for phase two: when the fill is short (a fast machine, or a calibration that
        # came out small) the seeded kills may all land in phase one; kills later after a full
        # crawl's trigger follow until one lands while the fill job adds vectors.
        for delay in (0.4, 0.8, 1.2, 1.8, 2.6):
            if sum(r["phase"] == "two" for r in results) >= 1:
                break
            results.append(bench.trial("full", rng, 180, delay=delay))
    finally:
        assert bench.runner.stop() == 0
    for r in results:
        assert r["converged"] and r["verify_clean"] and r["lost"] == [], json.dumps(r)
    assert sum(r["queued_at_kill"] for r in results) >= 1, results
    # and at least one while the fill job was adding vectors (phase two)
    assert sum(r["phase"] == "two" for r in results) >= 1, results
