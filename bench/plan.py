"""Everything before embedding, on real monorepos: resolve, enumerate, filter, package index,
read and chunk every crawled file. Baseline in the same run: `git ls-tree -r` + `git cat-file
--batch` reading the same blobs (what the git CLI itself needs just to read them).

Usage: .venv/bin/python bench/plan.py [tiktok+sparo microsoft+rushstack]
Target (issue 2): rushstack HEAD in < 10 s on 2 cores, peak RSS < 500 MB.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections import Counter

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, peak_rss_mb, table, timer  # noqa: E402
from monodex.indexer import chunkers  # noqa: E402
from monodex.indexer.chunkers.base import FileContext  # noqa: E402
from monodex.indexer.git import gitobjects
from monodex.indexer.git.plan import plan_commit  # noqa: E402
from monodex.indexer.policy import crawlpolicy

from monodex.disk import paths  # noqa: E402

BUDGET = chunkers.budget_for(256)  # the packaged MiniLM's token limit


def measure(name: str) -> dict[str, float]:
    work = checkout(name)
    r: dict[str, float] = {}
    t_all = time.perf_counter()
    with timer(r, "open+resolve"):
        repo = gitobjects.open_repo(work)
        commit = repo.resolve("HEAD")
    with timer(r, "enumerate+filter+packages"):
        plan = plan_commit(repo, commit, crawlpolicy.load(repo.workdir, paths.resolve()), "bench")
    chunks = 0
    kinds: Counter[str] = Counter()
    with timer(r, "read+chunk"):
        for f, content in plan.reader(plan.files):
            ctx = FileContext(relative_path=f.relative_path, package_name=f.package_name, budget=BUDGET)
            got = chunkers.chunk_file(f.strategy, content.decode("utf-8"), ctx)
            chunks += len(got)
            kinds.update(c.chunk_kind for c in got)
    r["total"] = time.perf_counter() - t_all
    r["files"] = len(plan.files)
    r["chunks"] = chunks
    r["rss_mb"] = peak_rss_mb()
    r["git_cli_baseline"] = _git_baseline(work, [f.blob_id for f in plan.files])
    print(f"{name}: skipped {dict(plan.skipped)}; chunk kinds {dict(kinds)}", file=sys.stderr)
    return r


def _git_baseline(work: object, blob_ids: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(["git", "-C", str(work), "ls-tree", "-r", "HEAD"], capture_output=True, check=True)
    subprocess.run(
        ["git", "-C", str(work), "cat-file", "--batch"],
        input="\n".join(blob_ids).encode(),
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - t0


def main() -> None:
    names = sys.argv[1:] or ["tiktok+sparo", "microsoft+rushstack"]
    rows = []
    with isolated_xdg():
        for name in names:
            r = measure(name)
            rows.append(
                [
                    name,
                    int(r["files"]),
                    int(r["chunks"]),
                    f"{r['open+resolve']:.2f}",
                    f"{r['enumerate+filter+packages']:.2f}",
                    f"{r['read+chunk']:.2f}",
                    f"{r['total']:.2f}",
                    f"{r['files'] / r['total']:.0f}",
                    f"{r['chunks'] / r['total']:.0f}",
                    f"{r['git_cli_baseline']:.2f}",
                    f"{r['rss_mb']:.0f}",
                ]
            )
    print(
        table(
            rows,
            [
                "repo",
                "files",
                "chunks",
                "resolve s",
                "plan s",
                "read+chunk s",
                "total s",
                "files/s",
                "chunks/s",
                "git CLI read s",
                "peak RSS MB",
            ],
        )
    )


if __name__ == "__main__":
    main()
