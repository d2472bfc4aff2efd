"""Search quality on the evaluation set in bench/eval/, every mode side by side with baselines.

Usage: .venv/bin/python bench/quality.py [sparo|rushstack|pnpm|napi-rs|rushstack-builtin|pnpm-builtin ...] [--raw-variant] [--split tune|test|all]

Every query belongs to one split, fixed by a hash of its id (`split_of`): `tune` (the default) is
what ranking changes are tried on; `test` is run only to report a change already chosen, and a
change that helps `tune` but not `test` is not kept (issue 14). `--split all` reports both,
side by side. A target in HELD_OUT (pnpm, the third repository) has no tune half: nothing was
ever tuned on it, so every one of its queries is `test` (`bench/quality.py pnpm --split test`).
A set of `kind` doc-sanity (bench/eval/build_doc.py) is a floor, not a figure to tune: it has no
split, all of it is scored whatever --split says, and it is printed apart (`doc-sanity (200):
R@10 0.990`), never mixed into the PR-title figures.

For each target: crawl (kept under bench/.work/xdg-<target>, so a second run reuses it), start the
runner, and run every query through the real CLI (`monodex search --json`, answered over the
runner's socket) in each mode. In the same run, over the same chunks read back from the index:
BM25 on chunk words, and keyword matching over whole files. Every system gets the same treatment
the default search has: tests, snapshots, API reports, change files and changelogs moved down
`ranking.DEMOTION` places, results as distinct files. Metrics over files: Recall@1/5/10 (share
of a query's relevant files found), MRR@10, nDCG@10 (binary relevance).

--raw-variant also crawls a second index in-process whose embedded text is the bare chunk (no
path / package / symbol header) and scores it: the effect of the contextual embedding text.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import checkout, persistent_xdg, table  # noqa: E402
from monodex.indexer.evaluate import bm25, questions  # noqa: E402
from monodex.indexer.evaluate.bm25 import words  # noqa: E402
from monodex.indexer.evaluate.metrics import mean, metrics  # noqa: E402

EVAL = Path(__file__).resolve().parent / "eval"
MDX = [sys.executable, "-m", "monodex"]
TARGETS = {
    "sparo": ("tiktok+sparo", "ca06251a491699b020e0529903ba8a726ff135e2", None),
    "rushstack": (
        "microsoft+rushstack",
        "ae8073b330ea1004921cad9065f9dce60fc35a5b",
        {  # the libraries (tests and changelogs included, so ranking them matters) and root docs
            "version": 1,
            "fileTypes": {".ts": "typescript", ".tsx": "typescript", ".md": "markdown"},
            "patternsToExclude": [
                "**/*.d.ts",
                "lib/",
                "lib-commonjs/",
                "lib-esm/",
                "dist/",
                "node_modules/",
                "temp/",
                "apps/",
                "build-tests/",
                "build-tests-samples/",
                "common/",
                "rigs/",
                "eslint/",
                "heft-plugins/",
                "repo-scripts/",
                "rush-plugins/",
                "vscode-extensions/",
                "webpack/",
                "tutorials/",
                "examples/",
            ],
            "patternsToKeep": [],
        },
    ),
    "pnpm": (
        "pnpm+pnpm",
        "36e5ae6ac8d03743442f083680fa3015e4a774b3",
        {  # the TypeScript CLI's packages under pnpm11/ (tests included) and root docs; not the
            # Rust parts (pnpm/, pnpr/) nor the release notes waiting in .changeset/
            "version": 1,
            "fileTypes": {".ts": "typescript", ".tsx": "typescript", ".md": "markdown"},
            "patternsToExclude": [
                "**/*.d.ts",
                "lib/",
                "dist/",
                "node_modules/",
                "__fixtures__/",
                ".changeset/",
                ".github/",
                ".agents/",
                ".meta-updater/",
                "docker/",
                "pnpm/**",  # a glob: the folder pattern "pnpm/" would also drop pnpm11/pnpm/
                "pnpr/**",
            ],
            "patternsToKeep": [],
        },
    ),
    # The polyglot set (issue 23): Rust crates, the TypeScript CLI, JavaScript bindings and
    # Cargo.toml, crawled with the built-in policy as a new user would.
    "napi-rs": ("napi-rs+napi-rs", "8681902ce671fc2010a6e40fe4e2c9557ec44fa6", None),
}
# The same repositories and queries crawled with the built-in policy (issue 23's open point): their
# JSON and JavaScript config, build scripts and the rest compete with the TypeScript answers, as on
# sparo, but with tune halves that have something to learn from.
SAME_QUERIES = {"rushstack-builtin": "rushstack", "pnpm-builtin": "pnpm"}
for _variant, _of in SAME_QUERIES.items():
    TARGETS[_variant] = (*TARGETS[_of][:2], None)
# Targets no ranking change was ever tried on: all their queries are held out for reporting.
HELD_OUT = frozenset({"pnpm", "pnpm-builtin"})
SANITY = "doc-sanity"  # the `kind` of a set that is a floor, scored apart (build_doc.py)
STOP = set(
    "a an and are as at be by can do does for from how i in is it of on or the this to use used "
    "uses using what when where which with why add fix support feat should not".split()
)


def query_set(target: str) -> str:
    """The name of the eval sets a target is scored on (`rushstack-builtin` -> `rushstack`)."""
    return SAME_QUERIES.get(target, target)


def split_of(query_id: str, target: str = "") -> str:
    """Half the queries of every set are held out for reporting, by a hash of the id (the one
    `monodex eval` splits by): stable as queries are added, and independent of order or content.
    A HELD_OUT target's are all held out."""
    if target in HELD_OUT:
        return "test"
    return questions.split_of(query_id)


def splits() -> tuple[str, ...]:
    arg = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--split=")), None)
    if arg is None and "--split" in sys.argv:
        arg = sys.argv[sys.argv.index("--split") + 1]
    chosen = arg or "tune"
    if chosen not in ("tune", "test", "all"):
        raise SystemExit(f"--split takes tune, test or all, not {chosen!r}")
    return ("tune", "test") if chosen == "all" else (chosen,)


def queries(name: str) -> list[dict[str, Any]]:
    out = []
    for f in sorted(EVAL.glob(f"{query_set(name)}-*.json")):
        doc = json.loads(f.read_text())
        if doc.get("kind") != SANITY:
            out += [{**q, "set": f.stem, "split": split_of(q["id"], name)} for q in doc["queries"]]
    return [q for q in out if q["split"] in splits()]


def sanity_queries(name: str) -> list[dict[str, Any]]:
    """Every query of the target's doc-sanity sets, whatever --split says (split `sanity`)."""
    out = []
    for f in sorted(EVAL.glob(f"{query_set(name)}-*.json")):
        doc = json.loads(f.read_text())
        if doc.get("kind") == SANITY:
            out += [{**q, "set": f.stem, "split": "sanity"} for q in doc["queries"]]
    return out


def demote_and_group(scored: list[tuple[str, str, float]], *, chunk_kind: dict[str, str]) -> list[str]:
    """(path, unit id, score) best first -> distinct paths with the default search's demotion."""
    from monodex.indexer.rank import ranking

    keyed = []
    for pos, (path, unit, _) in enumerate(scored, start=1):
        role = ranking.role_of(path, chunk_kind.get(unit))
        keyed.append((pos + (0 if role == ranking.SOURCE else ranking.DEMOTION), pos, path))
    keyed.sort()
    seen: list[str] = []
    for _, _, path in keyed:
        if path not in seen:
            seen.append(path)
    return seen


# --- baselines (metrics, words and BM25 are monodex eval's own: indexer/evaluate/) ----------


class BM25:
    """Okapi BM25 over the index's chunks (monodex eval's, indexer/evaluate/bm25.py: plain word
    tokens; k1 1.2, b 0.75)."""

    def __init__(self, chunks: list[dict[str, Any]]) -> None:
        self.chunks = chunks
        self.index = bm25.BM25([str(c["text"]) for c in chunks])

    def search(self, query: str, n: int = 100) -> list[tuple[str, str, float]]:
        best = self.index.search(query, n)
        return [(self.chunks[i]["relative_path"], self.chunks[i]["id"], s) for i, s in best]


def keyword_files(files: dict[str, str], query: str, n: int = 100) -> list[tuple[str, str, float]]:
    """Files ranked by how many distinct query words they contain, then by occurrences."""
    terms = [w for w in dict.fromkeys(words(query)) if w not in STOP and len(w) > 2]
    scored = []
    for path, text in files.items():
        lowered = text.lower()
        present = [t for t in terms if t in lowered]
        if present:
            scored.append((path, path, len(present) + sum(lowered.count(t) for t in present) / 1e6))
    scored.sort(key=lambda s: -s[2])
    return scored[:n]


# --- monodex through the CLI -----------------------------------------------------------------


def cli_search(catalog: str, text: str, *flags: str) -> list[str]:
    out = subprocess.run(
        [
            *MDX,
            "search",
            "--catalog",
            catalog,
            "--label",
            "main",
            "--text",
            text,
            "--limit",
            "10",
            *flags,
            "--json",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [r["relative_path"] for r in json.loads(out)["results"]]


def read_chunks(name: str) -> list[dict[str, Any]]:
    from monodex.indexer.points import filters, membership
    from monodex.indexer.session import Session

    from monodex.disk import paths
    from monodex.settings import config

    p = paths.resolve()
    with Session(config.load(p), p) as s:
        flt = filters.label_chunks(membership.of(s.store, f"{name}:main"))
        return [{"id": r.id, **r.payload} for r in s.store.scroll(flt)]


def evaluate(name: str, raw_variant: bool) -> dict[str, dict[str, float]]:
    mirror, commit, part = TARGETS[name]
    work = checkout(mirror, rev=commit)
    with persistent_xdg(name) as root:
        from monodex.disk import paths

        p = paths.resolve()
        if part:
            p.config_dir.mkdir(parents=True, exist_ok=True)
            p.user_crawl_file.write_text(json.dumps(part, indent=2))
        subprocess.run([*MDX, "catalog", "add", name, str(work), "--force"], check=True, capture_output=True)
        t0 = time.perf_counter()
        crawl = subprocess.run(
            [*MDX, "crawl", "--catalog", name, "--label", "main", "--commit", commit, "--json"],
            check=True,
            capture_output=True,
            text=True,
        )
        summary = json.loads(crawl.stdout)
        print(
            f"{name}: crawl {summary['mode']} {summary['files_total']} files, {summary['chunks_embedded']} chunks "
            f"embedded now, {time.perf_counter() - t0:.0f} s",
            flush=True,
        )
        chunks = read_chunks(name)
        kinds = {c["id"]: c.get("chunk_kind", "content") for c in chunks}
        files: dict[str, list[tuple[int, str]]] = defaultdict(list)
        for c in chunks:
            files[c["relative_path"]].append((int(c["chunk_ordinal"]), str(c["text"])))
        file_text = {path: "".join(t for _, t in sorted(parts)) for path, parts in files.items()}
        qs, docs = [], []
        for q in queries(name) + sanity_queries(name):
            rel = {r for r in q["relevant"] if r in file_text}
            if rel:
                (docs if q["split"] == "sanity" else qs).append({**q, "relevant": rel})
        print(
            f"{name}: {len(qs)} queries with an indexed answer (and {len(docs)} doc-sanity), "
            f"{len(chunks)} chunks, {len(file_text)} files"
        )
        bm25 = BM25(chunks)
        systems: dict[str, Any] = {
            "keyword (files)": lambda q: demote_and_group(keyword_files(file_text, q), chunk_kind={}),
            "BM25 (chunks)": lambda q: demote_and_group(bm25.search(q), chunk_kind=kinds),
        }
        runner = subprocess.Popen([*MDX, "runner", "--drain-seconds", "3600"], stderr=subprocess.DEVNULL)
        try:
            from monodex.scheduler.server import wait_listening

            assert wait_listening(p.socket_path, timeout=120), "the runner did not start"
            for mode in ("hybrid", "dense", "lexical"):
                systems[f"monodex {mode}"] = lambda q, m=mode: cli_search(name, q, "--mode", m)
            systems["monodex hybrid, tests not moved down"] = lambda q: cli_search(name, q, "--include-tests")
            results: dict[str, dict[str, float]] = {}
            per_query: dict[str, list[dict[str, float]]] = {}
            for sys_name, fn in systems.items():
                rows = [metrics(fn(q["query"]), q["relevant"]) for q in qs + docs]
                per_query[sys_name] = rows
                results[sys_name] = mean(rows[: len(qs)])  # doc-sanity rows: only in the lines below
        finally:
            runner.terminate()
            runner.wait(timeout=120)
        scored = qs + docs
        sets = sorted({f"{q['set']}/{q['split']}" for q in scored})
        for sys_name, rows in per_query.items():
            by_set = []
            for name_of_set in sets:
                picked = [
                    r for r, q in zip(rows, scored, strict=True) if f"{q['set']}/{q['split']}" == name_of_set
                ]
                m = mean(picked)
                by_set.append(f"{name_of_set} ({len(picked)}): R@10 {m['R@10']:.3f} MRR@10 {m['MRR@10']:.3f}")
            print(f"  {sys_name}: " + "; ".join(by_set))
        if docs:
            print(f"{name}: {sanity_line(per_query['monodex hybrid'][len(qs) :])} (monodex hybrid)")
        if raw_variant:
            results["monodex hybrid, bare chunk embedded"] = raw(name, part, work, commit, qs, root)
        latency(name, [q["query"] for q in qs])
        sparse_cost(name, chunks, root, float(summary["seconds"]))
        return results


def sanity_line(rows: list[dict[str, float]]) -> str:
    """The doc-sanity floor in one line (issue 14 asks R@10 >= 0.98 of it)."""
    m = mean(rows)
    return f"doc-sanity ({len(rows)}): R@10 {m['R@10']:.3f} MRR@10 {m['MRR@10']:.3f}"


def raw(
    name: str, part: Any, work: Path, commit: str, qs: list[dict[str, Any]], root: Path
) -> dict[str, float]:
    """A second index in-process whose embedded text is the bare chunk."""
    from monodex.indexer.ops import answers
    from monodex.indexer.points import payloads as payloads_mod
    from monodex.indexer.session import Session
    from monodex.indexer.store.edge import EdgeStore
    from monodex.indexer.write import crawl as crawl_mod
    from monodex.indexer.write import crawlrun

    from monodex.disk import paths
    from monodex.requests import SearchRequest
    from monodex.settings import config

    p = paths.resolve()
    cfg = config.load(p)
    bare = lambda info, chunk: chunk.text  # noqa: E731
    payloads_mod.embed_text, crawl_mod.embed_text = bare, bare  # type: ignore[assignment]
    store = EdgeStore(root / "raw-shard", "monodex")
    with Session(cfg, p, store=store) as s:
        t0 = time.perf_counter()
        crawlrun.crawl(s, crawlrun.Request(cfg.catalog(name), "main", commit))
        print(f"{name}: bare-text index crawled in {time.perf_counter() - t0:.0f} s", flush=True)
        rows = []
        for q in qs:
            found = answers.run(s, SearchRequest(name, "main", q["query"]))
            rows.append(metrics([r["relative_path"] for r in found["results"]], q["relevant"]))
    store.close()
    return mean(rows)


def sparse_cost(name: str, chunks: list[dict[str, Any]], root: Path, crawl_seconds: float) -> None:
    """What the lexical vectors add: encoding time against the crawl, stored bytes against the
    dense vectors and the shard on disk."""
    from monodex.indexer.points import lexical

    texts = [f"path: {c['relative_path']}\npackage: {c.get('package_name')}\n\n{c['text']}" for c in chunks]
    t0 = time.perf_counter()
    nonzeros = sum(len(lexical.document_vector(t).indices) for t in texts)
    encode = time.perf_counter() - t0
    shard = sum(
        f.stat().st_blocks * 512 for f in (root / "xdg_data_home").rglob("*") if f.is_file()
    )  # sparse files
    dense = len(chunks) * 384 * 4
    print(
        f"{name}: lexical vectors: {nonzeros / len(chunks):.0f} terms a chunk, {nonzeros * 8 / 1e6:.1f} MB raw "
        f"(dense vectors {dense / 1e6:.1f} MB, shard on disk {shard / 1e6:.0f} MB); encoding all "
        f"{len(chunks)} chunks {encode:.1f} s (the first crawl took {crawl_seconds:.0f} s)"
    )


def latency(name: str, texts: list[str]) -> None:
    """The query path in-process (query embedding + Qdrant + ranking), warm model, per mode."""
    from monodex.indexer.ops import answers
    from monodex.indexer.session import Session

    from monodex.disk import paths
    from monodex.requests import SearchRequest
    from monodex.settings import config

    p = paths.resolve()
    with Session(config.load(p), p) as s:
        for mode in ("hybrid", "dense", "lexical"):
            answers.run(s, SearchRequest(name, "main", "warm up", mode=mode))
            samples = []
            for t in texts:
                t0 = time.perf_counter()
                answers.run(s, SearchRequest(name, "main", t, mode=mode))
                samples.append(time.perf_counter() - t0)
            ordered = sorted(samples)
            p95 = ordered[round(0.95 * (len(ordered) - 1))]
            print(
                f"{name}: in-process {mode} search p50 {statistics.median(samples) * 1e3:.1f} ms, p95 {p95 * 1e3:.1f} ms"
            )


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--") and a not in ("tune", "test", "all")]
    print(f"splits: {', '.join(splits())}")
    raw_variant = "--raw-variant" in sys.argv
    names = args or ["sparo", "rushstack"]
    for name in names:  # before any crawl: a wrong name or an empty split costs minutes otherwise
        if name not in TARGETS:
            raise SystemExit(f"unknown target {name!r}: choose from {', '.join(TARGETS)}")
        if not queries(name):
            raise SystemExit(
                f"{name} has no queries in split {'/'.join(splits())}"
                + (" (it is held out: run it with --split test)" if name in HELD_OUT else "")
            )
    overall: dict[str, list[tuple[int, dict[str, float]]]] = defaultdict(list)
    for name in names:
        results = evaluate(name, raw_variant)
        n = sum(1 for _ in queries(name))
        keys = ["R@1", "R@5", "R@10", "MRR@10", "nDCG@10"]
        print(table([[s, *(f"{r[k]:.3f}" for k in keys)] for s, r in results.items()], ["system", *keys]))
        print()
        for s, r in results.items():
            overall[s].append((n, r))
    return None


if __name__ == "__main__":
    main()
