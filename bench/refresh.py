"""Incremental refresh against full crawl along real history, in one run.

Usage: .venv/bin/python bench/refresh.py [sparo|rushstack] [STEPS]
For STEPS consecutive first-parent commits: changed paths, files re-chunked, chunks embedded and
reused, Qdrant requests, wall time and wall time outside the model, for an incremental refresh
of one label and, in the same run, a full crawl of another label to the same commit.
Targets (issue 7): the model runs only on chunks whose embedded text is new; time outside
embedding < 1 s whatever the repository size; incremental >= 20x faster than full for 1-file
commits. Writes docs/refresh-<target>.png (needs the `bench` extra: matplotlib).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, isolated_xdg, table  # noqa: E402

DOCS = Path(__file__).resolve().parent.parent / "docs"
# rushstack: its libraries' TypeScript and docs (about a third of the tree), to keep the
# first crawl within minutes on 2 cores; the refresh cost does not depend on the part's size.
RUSHSTACK_PART = {
    "version": 1,
    "fileTypes": {".ts": "typescript", ".md": "markdown"},
    "patternsToExclude": [
        "**/*.test.ts",
        "**/test/**",
        "**/*.d.ts",
        "lib/",
        "node_modules/",
        "apps/",
        "build-tests/",
    ],
    "patternsToKeep": [],
}
TARGETS = {"sparo": ("tiktok+sparo", None), "rushstack": ("microsoft+rushstack", RUSHSTACK_PART)}


class Counting:
    """The real store, counting requests."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.requests = inner, 0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr) or name == "close":
            return attr

        def counted(*a: Any, **k: Any) -> Any:
            self.requests += 1
            return attr(*a, **k)

        return counted


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else "sparo"
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    mirror, part = TARGETS[name]
    work = checkout(mirror)
    revs = subprocess.run(
        ["git", "-C", str(work), "rev-list", "--first-parent", f"-n{steps + 1}", "HEAD~1"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()[::-1]
    with isolated_xdg() as tmp:
        import json

        from monodex.indexer import session
        from monodex.indexer.git import gitobjects
        from monodex.indexer.session import Session
        from monodex.indexer.store.edge import EdgeStore
        from monodex.indexer.write import crawlrun

        from monodex.disk import paths
        from monodex.settings import config

        p = paths.resolve()
        if part:
            p.config_dir.mkdir(parents=True, exist_ok=True)
            p.user_crawl_file.write_text(json.dumps(part))
        cat = config.Catalog(name, work)
        cfg = config.Config(catalogs={name: cat})
        engine = session.engine(cfg)
        embed_seconds = [0.0]
        real = engine.embed_documents

        def timed(texts: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return real(texts)
            finally:
                embed_seconds[0] += time.perf_counter() - t0

        engine.embed_documents = timed  # type: ignore[method-assign]
        # Two shards: the full crawl must not find the incremental refresh's new chunks stored.
        stores = {
            "inc": Counting(EdgeStore(tmp / "inc", "monodex")),
            "full": Counting(EdgeStore(tmp / "full", "monodex")),
        }
        repo = gitobjects.open_repo(work)

        def run(label: str, rev: str, *, full: bool) -> dict[str, Any]:
            store = stores[label]
            embed_seconds[0], store.requests = 0.0, 0
            t0 = time.perf_counter()
            s = Session(cfg, p, store=store, engine=engine)  # type: ignore[arg-type]
            out = crawlrun.crawl(s, crawlrun.Request(cat, "main", rev, full=full)).as_json()
            wall = time.perf_counter() - t0
            return {**out, "wall": wall, "outside": wall - embed_seconds[0], "requests": store.requests}

        t0 = time.perf_counter()
        first = run("inc", revs[0], full=True)
        run("full", revs[0], full=True)  # embeds everything a second time, in its own shard
        print(
            f"{name}: first crawl at {revs[0][:10]}: {first['files_total']} files, "
            f"{first['chunks_embedded']} chunks, {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        rows, points = [], []
        for rev in revs[1:]:
            prev = revs[revs.index(rev) - 1]
            changed = len(repo.diff_trees(prev, rev))
            inc = run("inc", rev, full=False)
            full = run("full", rev, full=True)
            points.append((changed, inc["wall"], full["wall"]))
            rows.append(
                [
                    rev[:10],
                    changed,
                    inc["mode"],
                    inc["files_embedded"],
                    inc["chunks_embedded"],
                    inc["chunks_reused"],
                    inc["requests"],
                    f"{inc['wall']:.2f}",
                    f"{inc['outside']:.2f}",
                    f"{full['wall']:.2f}",
                    f"{full['wall'] / inc['wall']:.0f}x",
                ]
            )
            print(" | ".join(str(c) for c in rows[-1]), flush=True)
    print()
    print(
        table(
            rows,
            [
                "commit",
                "changed paths",
                "mode",
                "files re-chunked",
                "chunks embedded",
                "chunks reused",
                "Qdrant requests",
                "incremental s",
                "outside model s",
                "full crawl s",
                "speed-up",
            ],
        )
    )
    small = [f / i for c, i, f in points if c <= 1] or [f / i for c, i, f in points]
    print(
        f"median speed-up on 1-file commits: {statistics.median(small):.0f}x; "
        f"max time outside the model: {max(float(r[8]) for r in rows):.2f} s"
    )
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: pip install -e '.[bench]' for the plot")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter([c for c, _, _ in points], [i for _, i, _ in points], label="incremental refresh")
    ax.scatter([c for c, _, _ in points], [f for _, _, f in points], marker="x", label="full crawl")
    ax.set_xscale("symlog")
    ax.set_yscale("log")
    ax.set_xlabel("changed paths in the commit")
    ax.set_ylabel("wall time (s)")
    ax.set_title(f"Label refresh along {len(points)} commits of {name}")
    ax.legend()
    fig.tight_layout()
    out = DOCS / f"refresh-{name}.png"
    fig.savefig(out, dpi=100)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
