"""What `monodex status` loads with the runner down (issue 13), on a throwaway one-file repository.

Usage: .venv/bin/python bench/status_start.py [--runs 5]
Crawls the repository once, then runs `status` collection in N fresh interpreters and reports the
modules loaded, which heavy dependencies among them, and the wall time (median; indicative only on
shared cores). The module count is the stable figure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg, table  # noqa: E402

HEAVY = ("apscheduler", "dulwich", "tree_sitter", "onnxruntime", "tokenizers", "qdrant_edge", "numpy")
PROBE = """import json, sys, time
t = time.perf_counter()
from monodex.disk import paths
from monodex.front import render, status
render.status(status.collect(paths.resolve()))
print(json.dumps([len(sys.modules), sorted({m.split('.')[0] for m in sys.modules}), time.perf_counter() - t]))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with isolated_xdg(), tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / "src").mkdir(parents=True)
        (repo / "src" / "a.ts").write_text("export const a = 1;\n")
        git = ["git", "-C", str(repo), "-c", "user.name=b", "-c", "user.email=b@example.com"]
        subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
        mdx = [sys.executable, "-m", "monodex"]
        subprocess.run([*mdx, "catalog", "add", "bench", str(repo)], check=True, capture_output=True)
        crawl = [*mdx, "crawl", "--catalog", "bench", "--label", "main", "--commit", "HEAD", "--json"]
        subprocess.run(crawl, check=True, capture_output=True)
        runs = []
        for _ in range(args.runs):
            out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
    count, loaded, _ = runs[-1]
    seconds = statistics.median(r[2] for r in runs)
    heavy = ", ".join(sorted(set(HEAVY) & set(loaded))) or "none"
    print(table([[count, heavy, f"{seconds:.3f}"]], ["modules", "heavy loaded", "median s"]))


if __name__ == "__main__":
    main()
