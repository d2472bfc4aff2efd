"""bench/paired.py tells a real difference between two builds from the luck of the questions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PAIRED = Path(__file__).resolve().parents[1] / "bench" / "paired.py"


def _run(tmp_path: Path, before: dict[str, float], after: dict[str, float], *flags: str) -> str:
    for name, scores in (("before", before), ("after", after)):
        per = {q: {"MRR@10": v, "R@10": v, "set": "s"} for q, v in scores.items()}
        (tmp_path / f"{name}.json").write_text(json.dumps(per))
    cmd = [sys.executable, str(PAIRED), str(tmp_path / "before.json"), str(tmp_path / "after.json"), *flags]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def test_a_consistent_gain_has_an_interval_above_zero_and_a_single_one_does_not(tmp_path: Path) -> None:
    ids = [f"q{i}" for i in range(20)]
    out = _run(tmp_path, dict.fromkeys(ids, 0.5), dict.fromkeys(ids, 1.0))
    assert "all (20): 0.500 -> 1.000  diff +0.500 [95% +0.500, +0.500]  better 20, worse 0" in out
    one = {**dict.fromkeys(ids, 0.5), "q0": 1.0}
    out = _run(tmp_path, dict.fromkeys(ids, 0.5), one)
    assert "diff +0.025 [95% +0.000, +0.075]  better 1, worse 0, same 19" in out


def test_queries_only_one_build_can_answer_are_listed_apart(tmp_path: Path) -> None:
    out = _run(tmp_path, {"a": 1.0}, {"a": 1.0, "b": 0.0})
    assert "all (1):" in out and "only after has an indexed answer for 1: b" in out
    counted = _run(tmp_path, {"a": 1.0}, {"a": 1.0, "b": 0.5}, "--unanswerable-as-0")
    assert "all (2): 0.500 -> 0.750  diff +0.250" in counted and "counted 0 for the other: b" in counted
