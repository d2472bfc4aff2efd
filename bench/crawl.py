"""Crawl throughput against raw embedder throughput, second-label reuse, search latency.

Usage: .venv/bin/python bench/crawl.py [sparo|rushstack-part]
Targets (issue 3): crawl >= 85% of raw embedder chunks/s; a second label sharing most files
< 10% of the first crawl's time; `monodex search` end to end < 1.5 s; in-process query < 50 ms
at 10,000 chunks; peak RSS < 1.5 GB.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, table  # noqa: E402

# A part of rushstack of about 10,000 chunks: its libraries' TypeScript sources.
RUSHSTACK_PART = {
    "version": 1,
    "fileTypes": {".ts": "typescript", ".md": "markdown"},
    "patternsToExclude": [
        "**/*.test.ts",
        "**/test/**",
        "**/__tests__/**",
        "**/*.d.ts",
        "**/CHANGELOG.md",
        "lib/",
        "node_modules/",
    ],
    "patternsToKeep": [],
}
TARGETS = {
    "sparo": ("tiktok+sparo", None, "HEAD~3"),
    "rushstack-part": ("microsoft+rushstack", RUSHSTACK_PART, "HEAD~1"),
}
QUERIES = [
    "parse a JSON file",
    "run a command in a child process",
    "read the configuration",
    "print colored text in the terminal",
    "git checkout of a sparse folder",
    "install dependencies with pnpm",
    "watch files for changes",
    "resolve a package name",
]
MDX = [sys.executable, "-m", "monodex"]


def cli(*args: str) -> tuple[dict[str, object], float]:
    t0 = time.perf_counter()
    out = subprocess.run([*MDX, *args, "--json"], capture_output=True, text=True, check=True).stdout
    return json.loads(out), time.perf_counter() - t0


def raw_embedder_rate(work: Path, policy_source: dict[str, object] | None, sample: int) -> float:
    from monodex.indexer import session
    from monodex.indexer.chunkers.base import FileContext
    from monodex.indexer.git import gitobjects
    from monodex.indexer.git.plan import plan_commit
    from monodex.indexer.points.payloads import FileInfo, embed_text
    from monodex.indexer.policy import crawlpolicy

    from monodex.disk import paths
    from monodex.settings.config import Config

    repo = gitobjects.open_repo(work)
    plan = plan_commit(repo, repo.resolve("HEAD"), crawlpolicy.load(work, paths.resolve()), "bench")
    engine = session.engine(Config())
    texts: list[str] = []
    for f, content in plan.reader(plan.files):
        info = FileInfo("bench", "bench:x", f.relative_path, f.package_name, f.blob_id, "", "", "", "")
        ctx = FileContext(f.relative_path, f.package_name, engine.budget)
        texts += [embed_text(info, c) for c in engine.chunk(f.strategy, content.decode(), ctx)]
        if len(texts) >= sample:
            break
    texts = texts[:sample]
    t0 = time.perf_counter()
    engine.embed_documents(texts)
    return len(texts) / (time.perf_counter() - t0)


def in_process_query_ms(label: str) -> list[float]:
    from monodex.indexer import session
    from monodex.indexer.read import search

    from monodex.disk import paths
    from monodex.settings import config

    cfg = config.load(paths.resolve())
    store, engine = session.store(cfg, paths.resolve()), session.engine(cfg)
    times = []
    for q in QUERIES * 5:
        t0 = time.perf_counter()
        search.search(store, engine, catalog="bench", label=label, text=q, limit=10)
        times.append((time.perf_counter() - t0) * 1000)
    store.close()
    return times


def run(name: str) -> list[list[object]]:
    mirror, policy, second_rev = TARGETS[name]
    work = checkout(mirror)
    policy_file = work / "monodex-crawl.json"
    if policy:
        policy_file.write_text(json.dumps(policy))
    elif policy_file.exists():
        policy_file.unlink()
    with isolated_xdg():
        subprocess.run(
            [*MDX, "catalog", "add", "bench", str(work), "--force"], check=True, capture_output=True
        )
        first, t_first = cli("crawl", "--catalog", "bench", "--label", "main", "--commit", "HEAD")
        second, t_second = cli("crawl", "--catalog", "bench", "--label", "prev", "--commit", second_rev)
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        e2e = [
            cli("search", "--catalog", "bench", "--label", "main", "--text", q, "--limit", "10")[1]
            for q in QUERIES[:5]
        ]
        chunks_total, _ = cli("labels")
        q_ms = in_process_query_ms("main")
        raw = raw_embedder_rate(work, policy, sample=min(600, int(first["chunks_embedded"])))
    crawl_rate = int(first["chunks_embedded"]) / float(first["seconds"])
    labels = {row["label"]: row["chunks"] for row in chunks_total["labels"]}  # type: ignore[index]
    return [
        [
            name,
            "first crawl",
            f"{first['files_embedded']} files, {first['chunks_embedded']} chunks",
            f"{t_first:.1f} s wall ({first['seconds']} s in crawl)",
        ],
        [
            name,
            "crawl vs raw embedder",
            f"{crawl_rate:.1f} vs {raw:.1f} chunks/s",
            f"{100 * crawl_rate / raw:.0f}%",
        ],
        [
            name,
            f"second label ({second_rev})",
            f"{second['files_embedded']} files, {second['chunks_embedded']} chunks embedded, {second['files_reused']} reused",
            f"{t_second:.1f} s = {100 * t_second / t_first:.1f}% of first",
        ],
        [
            name,
            "search end to end (new process)",
            f"median of {len(e2e)}",
            f"{statistics.median(e2e) * 1000:.0f} ms",
        ],
        [
            name,
            f"in-process query ({labels.get('main')} chunks)",
            "p50 / p95 of 40",
            f"{statistics.median(q_ms):.1f} / {sorted(q_ms)[int(len(q_ms) * 0.95)]:.1f} ms",
        ],
        [name, "peak RSS (crawl process)", "", f"{rss:.0f} MB"],
    ]


def main() -> None:
    rows = []
    for name in sys.argv[1:] or ["sparo"]:
        rows += run(name)
    print(table(rows, ["repo", "measure", "what", "result"]))


if __name__ == "__main__":
    main()
