"""Search follows you (issue 21): one entry point for its scenarios, each measured against a
baseline in the same run.

Usage: .venv/bin/python bench/follow.py SCENARIO [options]   (SCENARIO --help for its options)
       .venv/bin/python bench/follow.py                       (lists the scenarios)

A scenario lives in a module `bench/follow_<topic>.py` that defines `SCENARIOS = {name: main}`,
each `main(argv: list[str]) -> None` printing its table; this file finds them all, so adding a
scenario never touches it. Repositories come from $MONODEX_BENCH_MIRRORS (bench/_common.py).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

Scenario = Callable[[list[str]], None]


def scenarios() -> dict[str, tuple[str, Scenario]]:
    """{name: (module, main)} of every follow_*.py module's SCENARIOS."""
    found: dict[str, tuple[str, Scenario]] = {}
    for path in sorted(HERE.glob("follow_*.py")):
        module = importlib.import_module(path.stem)
        for name, run in getattr(module, "SCENARIOS", {}).items():
            if name in found:
                raise SystemExit(f"scenario {name!r} is defined by {found[name][0]} and {path.name}")
            found[name] = (path.name, run)
    return found


def main(argv: list[str]) -> None:
    known = scenarios()
    if not argv or argv[0] not in known:
        listing = "\n".join(f"  {name:<16} ({module})" for name, (module, _) in sorted(known.items()))
        print(f"usage: bench/follow.py SCENARIO [options]\nscenarios:\n{listing}", file=sys.stderr)
        raise SystemExit(2 if argv else 0)
    known[argv[0]][1](argv[1:])


if __name__ == "__main__":
    main(sys.argv[1:])
