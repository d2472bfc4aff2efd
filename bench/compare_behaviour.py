"""A search, a crawl and a refresh on sparo, recorded so that two builds of monodex can be compared:
a refactoring must not change what the index holds or what a search answers (issue 13).

Usage: PYTHON bench/compare_behaviour.py OUT.json
  PYTHON is the interpreter of the monodex build to record (its `-m monodex` is what runs).
  Compare two records with: diff <(jq -S . a.json) <(jq -S . b.json)  (or python -m json.tool)

It crawls sparo at a fixed commit (full), refreshes the label to a later commit (incremental) and
runs fixed queries in each search mode, in a throwaway installation (the four XDG folders in a
temporary directory). Timings are left out of the record: only what could differ in behaviour is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import mirrors, missing_mirror  # noqa: E402

OLD, NEW = (
    "18c87c2d6d0be7ad6a5bd0a7a57a2bc506894a4e",
    "ca06251a491699b020e0529903ba8a726ff135e2",
)  # sparo: 20-odd commits apart
QUERIES = [
    "where is the sparse checkout profile applied",
    "how are git commands run and their output parsed",
    "telemetry of command duration",
    "list the projects selected by a profile",
    "check that the git version is recent enough",
    "where is the configuration file loaded",
]
VOLATILE = {"seconds", "updated_at_unix_secs", "started_at", "rate", "elapsed"}


def run(python: str, env: dict[str, str], *args: str) -> Any:
    out = subprocess.run(
        [python, "-m", "monodex", *args], env=env, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out) if "--json" in args else out


def scrub(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: scrub(v) for k, v in sorted(value.items()) if k not in VOLATILE}
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, float):
        return round(value, 4)
    return value


def main() -> None:
    out = Path(sys.argv[1])
    mirror = mirrors() / "tiktok+sparo" / "repo"
    if not mirror.exists():
        raise SystemExit(missing_mirror("tiktok+sparo", mirrors()))
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        for k in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
            env[k] = f"{tmp}/{k.lower()}"
            os.makedirs(env[k], mode=0o700)
        repo = Path(tmp) / "sparo"
        subprocess.run(
            ["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(repo)], check=True
        )
        run(python, env, "catalog", "add", "sparo", str(repo))
        base = ["--catalog", "sparo", "--label", "main"]
        record: dict[str, Any] = {
            "crawl": run(python, env, "crawl", *base, "--commit", OLD, "--json"),
            "refresh": run(python, env, "crawl", *base, "--commit", NEW, "--json"),
            "labels": run(python, env, "labels", "--json"),
            "verify": run(python, env, "verify", "--json"),
            "search": {
                f"{mode}: {q}": [
                    {k: r[k] for k in ("relative_path", "chunk_ordinal", "start_line", "end_line", "score")}
                    for r in run(python, env, "search", *base, "--text", q, "--mode", mode, "--json")[
                        "results"
                    ]
                ]
                for q in QUERIES
                for mode in ("hybrid", "dense", "lexical")
            },
        }
    out.write_text(json.dumps(scrub(record), indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(record['search'])} searches -> {out}")


if __name__ == "__main__":
    main()
