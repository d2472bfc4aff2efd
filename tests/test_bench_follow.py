"""bench/follow.py: one entry point that finds every follow_*.py module's scenarios."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FOLLOW = Path(__file__).resolve().parents[1] / "bench" / "follow.py"


def _follow(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(FOLLOW), *args], capture_output=True, text=True, check=False)


def test_it_lists_the_scenarios_of_every_follow_module() -> None:
    done = _follow()
    assert done.returncode == 0
    assert "edit" in done.stderr and "overlay-check" in done.stderr and "follow_overlay.py" in done.stderr


def test_an_unknown_scenario_is_a_usage_error_and_a_scenario_takes_its_options() -> None:
    assert _follow("nosuch").returncode == 2
    done = _follow("overlay-check", "--help")
    assert done.returncode == 0 and "--dirty" in done.stdout
