"""Two-phase indexing (issue 16): how soon a cold label answers, how fast the vectors fill in
behind, what search is worth at each dense coverage, and how long a big branch move takes.

Usage: .venv/bin/python bench/two_phase.py [--target rushstack|sparo] [--no-baseline]
           [--no-quality] [--no-move] [--move-files 1000] [--sample 1024] [--split tune|test|all]

Every part runs in its own throwaway installation (isolated_xdg) through the real CLI
(`python -m monodex ...` in new processes), on the embedded default (Qdrant Edge + packaged
MiniLM). The figures:

a. Cold full crawl of the target at its mirror's HEAD with the built-in crawl policy (a temp
   clone sharing the mirror's objects, no work tree: the crawl reads the commit):
   - time to first search answer: from the start of `monodex crawl --no-wait-dense` (phase one)
     to the answer of a `monodex search` process started right after it returned;
   - time to full hybrid: from the same start to the end of `monodex crawl --wait-dense` (phase
     two in that process, no runner: what `./dev demo` does), dense coverage 1.0 checked;
   - phase two throughput: texts run through the model / seconds of the fill (its own report:
     model already loaded, store updates included), against
   - the raw embedder on the same texts: a seeded sample of `--sample` distinct embedded texts
     read back from the index, embedded in-process with the same Embedder (threads, batch size)
     after a warm-up, no store; phase two as % of raw (target >= 90%);
   - peak RSS of each crawl process (os.wait4's ru_maxrss; target < 1.5 GB);
   - baseline (`--no-baseline` skips it; ~16 min on rushstack): the same cold crawl with
     embedder.two_phase=false in config.json (today's one-phase refresh: the label moves once
     every chunk is embedded), then the same search: its time to first search answer.
b. Search quality by dense coverage on bench/eval/ (the target's queries, quality.py's split
   handling, commit and crawl part; R@10 / MRR@10 with quality.metrics over distinct files):
   phase one only (0%: hybrid search answers lexically), phase two's rounds until half the chunks
   have their vector (~50%), then all (100%); and `--mode lexical` at 100%, today's reference.
   Searches run in-process (indexer.ops, the code the CLI and the runner call): a runner would
   fill the vectors while we measure a partial coverage. Check: 0% is not worse than lexical.
c. A branch move of `--move-files` files (default 1,000): on the label crawled in (a), a commit
   appending a distinct exported constant to that many crawled .ts files (seeded pick), written
   with git plumbing into the temp clone. With `monodex runner` up, `monodex crawl --commit <new>`
   is handed to it and returns when the label is searchable (phase one: label complete at the new
   commit, checked); the runner's fill job adds the vectors, polled through `monodex labels`
   until none is pending: time until searchable, and until fully hybrid. The runner is warm (a
   search before the move loads its model), as one that has been up for a while is.

Timings are only figures when the machine runs nothing else; the quality figures are
deterministic. The table is printed with lines to paste into docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import quality  # noqa: E402
from _common import checkout, isolated_xdg, mirrors, missing_mirror, table  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]
TARGETS = {"rushstack": "microsoft+rushstack", "sparo": "tiktok+sparo"}
CATALOG = "bench"
# One question for the first answer: any would do; this one has an answer in both targets.
FIRST_QUERY = "read the configuration file"
RSS_TARGET_MB = 1536


@dataclass
class Measured:
    """A finished child process: its output, wall seconds and peak RSS."""

    stdout: str
    stderr: str
    seconds: float
    rss_mb: float
    code: int

    def json(self) -> dict[str, Any]:
        if self.code:
            raise SystemExit(f"a monodex command failed ({self.code}): {self.stderr[-2000:]}")
        return json.loads(self.stdout)  # type: ignore[no-any-return]


def measured(*args: str) -> Measured:
    """`monodex ARGS` as a child process; os.wait4 gives that child's own peak RSS (RUSAGE_CHILDREN
    would be the largest of every child waited for so far)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([*MDX, *args], stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait
        out.seek(0)
        err.seek(0)
        return Measured(
            out.read().decode(), err.read().decode(), seconds, usage.ru_maxrss / 1024, proc.returncode
        )


def mdx_json(*args: str) -> Any:
    return measured(*args, "--json").json()


def label_row(label: str = "main") -> dict[str, Any]:
    rows = mdx_json("labels")["labels"]
    return next(r for r in rows if r["catalog"] == CATALOG and r["label"] == label)


def temp_clone(name: str, root: Path) -> tuple[Path, str]:
    """A clone of the mirror sharing its objects, without a work tree, and the mirror's HEAD."""
    mirror = mirrors() / name / "repo"
    if not mirror.exists():
        raise SystemExit(missing_mirror(name, mirrors()))
    head = subprocess.run(
        ["git", "-C", str(mirror), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    target = root / name
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(mirror), str(target)], check=True)
    subprocess.run(["git", "-C", str(target), "update-ref", "--no-deref", "HEAD", head], check=True)
    return target, head


def search_seconds(t0: float) -> tuple[float, dict[str, Any]]:
    """A real `monodex search` process; seconds from t0 (the crawl's start) to its answer."""
    answer = mdx_json(
        "search", "--catalog", CATALOG, "--label", "main", "--text", FIRST_QUERY, "--limit", "10"
    )
    if not answer["results"]:
        raise SystemExit(f"the first search found nothing: {answer}")
    return time.perf_counter() - t0, answer


# --- a. cold crawl ----------------------------------------------------------------------------


@dataclass
class Cold:
    commit: str
    files: int = 0
    chunks: int = 0
    searchable_s: float = 0.0  # crawl start -> phase one's process returned
    first_answer_s: float = 0.0  # crawl start -> the first search's answer
    full_hybrid_s: float = 0.0  # crawl start -> phase two's process returned
    fill_embedded: int = 0
    fill_seconds: float = 0.0
    rss_mb: dict[str, float] = field(default_factory=dict)
    coverage_first: float = -1.0
    raw_rate: float = 0.0
    raw_sample: int = 0

    @property
    def fill_rate(self) -> float:
        return self.fill_embedded / self.fill_seconds if self.fill_seconds else 0.0


def cold_two_phase(repo: Path, commit: str) -> Cold:
    mdx_json("catalog", "add", CATALOG, str(repo), "--force")
    r = Cold(commit)
    t0 = time.perf_counter()
    one = measured(
        "crawl", "--catalog", CATALOG, "--label", "main", "--commit", commit, "--no-wait-dense", "--json"
    )
    r.searchable_s = time.perf_counter() - t0
    first = one.json()
    r.files = int(first["files_total"])
    r.first_answer_s, answer = search_seconds(t0)
    r.coverage_first = float(answer["dense_coverage"])
    two = measured(
        "crawl", "--catalog", CATALOG, "--label", "main", "--commit", commit, "--wait-dense", "--json"
    )
    r.full_hybrid_s = time.perf_counter() - t0
    dense = two.json()["dense"]
    r.fill_embedded, r.fill_seconds = int(dense["embedded"]), float(dense["seconds"])
    r.rss_mb = {"phase one": one.rss_mb, "phase two": two.rss_mb}
    row = label_row()
    if row["dense_coverage"] != 1.0 or row["commit_oid"] != commit or not row["crawl_complete"]:
        raise SystemExit(f"after phase two the label is not complete and fully hybrid: {row}")
    r.chunks = int(row["chunks"])
    print(
        f"cold two-phase: {r.files} files, {r.chunks} chunks; searchable {r.searchable_s:.1f} s, first answer "
        f"{r.first_answer_s:.1f} s, full hybrid {r.full_hybrid_s:.1f} s",
        flush=True,
    )
    return r


def raw_embedder(sample: int, seed: int) -> tuple[float, int]:
    """Chunks/s of the embedder alone on a seeded sample of the label's distinct embedded texts."""
    from monodex.indexer.points import filters, membership
    from monodex.indexer.points.payloads import stored_embed_text
    from monodex.indexer.session import Session

    from monodex import names
    from monodex.disk import paths
    from monodex.settings import config

    p = paths.resolve()
    with Session(config.load(p), p) as s:
        texts = {
            str(rec.payload["embedded_text_hash"]): stored_embed_text(rec.payload)
            for rec in s.store.scroll(
                filters.label_chunks(membership.of(s.store, names.label_id(CATALOG, "main")))
            )
        }
        picked = random.Random(seed).sample(sorted(texts.values()), min(sample, len(texts)))
        s.engine.embed_documents(picked[:8])  # warm-up: the first call pays onnxruntime's set-up
        t0 = time.perf_counter()
        s.engine.embed_documents(picked)
        return len(picked) / (time.perf_counter() - t0), len(picked)


def cold_baseline(repo: Path, commit: str) -> dict[str, float]:
    """Today's one-phase crawl: embedder.two_phase=false, then the same first search."""
    from monodex.disk import paths
    from monodex.settings import config

    mdx_json("catalog", "add", CATALOG, str(repo), "--force")
    p = paths.resolve()
    cfg = config.load(p)
    config.save(p, replace(cfg, embedder=replace(cfg.embedder, two_phase=False)))
    t0 = time.perf_counter()
    run = measured("crawl", "--catalog", CATALOG, "--label", "main", "--commit", commit, "--json")
    crawled = time.perf_counter() - t0
    summary = run.json()
    if summary["chunks_pending"]:
        raise SystemExit(
            f"the baseline crawl left chunks pending: two_phase=false was not honoured: {summary}"
        )
    first, answer = search_seconds(t0)
    if answer["dense_coverage"] != 1.0:
        raise SystemExit(f"the baseline's first answer is not fully hybrid: {answer['dense_coverage']}")
    print(f"cold one-phase baseline: searchable {crawled:.1f} s, first answer {first:.1f} s", flush=True)
    return {"searchable_s": crawled, "first_answer_s": first, "rss_mb": run.rss_mb}


# --- c. branch move ---------------------------------------------------------------------------


def git(repo: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> str:
    cmd = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args]
    proc = subprocess.run(
        cmd, cwd=repo, input=stdin, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    if proc.returncode:
        raise SystemExit(f"git {' '.join(args[:3])} failed: {proc.stderr}")
    return proc.stdout


def move_commit(repo: Path, base: str, files: int, seed: int) -> tuple[str, int]:
    """A child of `base` appending a distinct exported constant to `files` crawled .ts files,
    written with plumbing (the clone has no work tree): (its id, files changed)."""
    from monodex.indexer.policy import crawlpolicy

    from monodex.disk import paths

    policy = crawlpolicy.load(repo, paths.resolve())
    blobs = {}
    for line in git(repo, "ls-tree", "-r", base).splitlines():
        meta, path = line.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode == "100644" and path.endswith(".ts") and policy.should_crawl(path):
            blobs[path] = oid
    picked = sorted(random.Random(seed).sample(sorted(blobs), min(files, len(blobs))))
    with tempfile.TemporaryDirectory(prefix="monodex-move-") as tmp:
        written = []
        for i, path in enumerate(picked):
            body = subprocess.run(
                ["git", "cat-file", "blob", blobs[path]], cwd=repo, check=True, capture_output=True
            ).stdout
            f = Path(tmp) / f"{i}.ts"
            f.write_bytes(
                body
                + f"\n// moved by the bench: file {i}\nexport const monodexBenchMove{i} = {i};\n".encode()
            )
            written.append(str(f))
        oids = git(repo, "hash-object", "-w", "--stdin-paths", stdin="\n".join(written) + "\n").split()
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "read-tree", base, env=env)
        info = "".join(f"100644 {oid}\t{path}\n" for oid, path in zip(oids, picked, strict=True))
        git(repo, "update-index", "--index-info", stdin=info, env=env)
        tree = git(repo, "write-tree", env=env).strip()
    commit = git(repo, "commit-tree", tree, "-p", base, "-m", f"bench: {len(picked)} files moved").strip()
    git(repo, "update-ref", "refs/heads/bench-move", commit)
    return commit, len(picked)


def branch_move(repo: Path, base: str, files: int, seed: int, timeout: float) -> dict[str, Any]:
    """Through the runner: the crawl is handed to it and returns when searchable; its fill job
    does phase two, watched through `monodex labels` (answered by the runner's socket)."""
    from monodex.scheduler.server import wait_listening

    from monodex.disk import paths

    commit, changed = move_commit(repo, base, files, seed)
    runner = subprocess.Popen([*MDX, "runner", "--drain-seconds", "2"], stderr=subprocess.DEVNULL)
    try:
        if not wait_listening(paths.resolve().socket_path, timeout=120):
            raise SystemExit("the runner did not start")
        mdx_json("search", "--catalog", CATALOG, "--label", "main", "--text", "warm up")  # model loaded
        t0 = time.perf_counter()
        summary = mdx_json("crawl", "--catalog", CATALOG, "--label", "main", "--commit", commit)
        searchable = time.perf_counter() - t0
        row = label_row()
        if row["commit_oid"] != commit or not row["crawl_complete"]:
            raise SystemExit(f"the crawl returned before the label was complete at {commit}: {row}")
        pending_then = int(summary["chunks_pending"])
        while row["dense_pending"]:
            if time.perf_counter() - t0 > timeout:
                raise SystemExit(f"the fill did not finish in {timeout:.0f} s: {row}")
            time.sleep(0.5)
            row = label_row()
        hybrid = time.perf_counter() - t0
    finally:
        runner.terminate()
        runner.wait(timeout=120)
    print(
        f"branch move: {changed} files, searchable {searchable:.1f} s, fully hybrid {hybrid:.1f} s",
        flush=True,
    )
    return {
        "files": changed,
        "mode": summary["mode"],
        "pending": pending_then,
        "reused": int(summary["chunks_reused"]),
        "searchable_s": searchable,
        "hybrid_s": hybrid,
    }


# --- b. quality by coverage -------------------------------------------------------------------


def quality_by_coverage(name: str) -> list[list[object]]:
    """quality.py's target (commit, crawl part, queries, split) at 0%, ~50% and 100% coverage."""
    from monodex.indexer.ops import answers
    from monodex.indexer.session import Session
    from monodex.indexer.write import fill

    from monodex import names
    from monodex.disk import paths
    from monodex.requests import SearchRequest
    from monodex.settings import config

    mirror, commit, part = quality.TARGETS[name]
    work = checkout(mirror, rev=commit)
    p = paths.resolve()
    if part:
        p.config_dir.mkdir(parents=True, exist_ok=True)
        p.user_crawl_file.write_text(json.dumps(part, indent=2))
    mdx_json("catalog", "add", name, str(work), "--force")
    mdx_json("crawl", "--catalog", name, "--label", "main", "--commit", commit, "--no-wait-dense")
    chunks = quality.read_chunks(name)
    files: dict[str, list[tuple[int, str]]] = {}
    for c in chunks:
        files.setdefault(c["relative_path"], []).append((int(c["chunk_ordinal"]), str(c["text"])))
    qs = [
        {**q, "relevant": rel}
        for q in quality.queries(name)
        if (rel := {r for r in q["relevant"] if r in files})
    ]
    if not qs:
        raise SystemExit(f"{name}: no query of the split has an indexed answer")
    lid = names.label_id(name, "main")
    rows: list[list[object]] = []
    with Session(config.load(p), p) as s:

        def score(what: str, mode: str = "hybrid") -> None:
            found = [answers.run(s, SearchRequest(name, "main", q["query"], mode=mode)) for q in qs]
            m = quality.mean(
                [
                    quality.metrics([r["relative_path"] for r in f["results"]], q["relevant"])
                    for f, q in zip(found, qs, strict=True)
                ]
            )
            coverage = found[0]["dense_coverage"]
            rows.append(
                [name, what, mode, f"{coverage:.2f}", len(qs), f"{m['R@10']:.3f}", f"{m['MRR@10']:.3f}"]
            )
            print(
                f"{name}: {what} ({mode}, coverage {coverage:.2f}): R@10 {m['R@10']:.3f} MRR@10 {m['MRR@10']:.3f}"
            )

        total = fill.pending(s.store, lid)
        score("phase one only")
        fill.fill(s.store, s.engine, lid, rounds=math.ceil(total / 2 / fill.ROUND))
        score("half the rounds of phase two")
        fill.fill(s.store, s.engine, lid)
        score("phase two done")
        score("phase two done", "lexical")
    return rows


# --- the report -------------------------------------------------------------------------------


def report(
    target: str,
    cold: Cold | None,
    baseline: dict[str, float] | None,
    move: dict[str, Any] | None,
    quality_rows: list[list[object]],
) -> None:
    rows: list[list[object]] = []
    if cold is not None:
        what = f"{target} @ {cold.commit[:10]}, built-in policy: {cold.files} files, {cold.chunks} chunks"
        rows += [
            [
                "cold crawl, two-phase",
                "time to first search answer",
                f"{cold.first_answer_s:.1f} s",
                "< 30 s",
            ],
            ["cold crawl, two-phase", "searchable (phase one returned)", f"{cold.searchable_s:.1f} s", ""],
            [
                "cold crawl, two-phase",
                "time to full hybrid (coverage 1.0)",
                f"{cold.full_hybrid_s:.1f} s",
                "",
            ],
            [
                "cold crawl, two-phase",
                "phase two vs raw embedder",
                f"{cold.fill_rate:.1f} vs {cold.raw_rate:.1f} chunks/s "
                f"({cold.fill_embedded} texts in {cold.fill_seconds:.0f} s; raw: {cold.raw_sample} of them)",
                f"{100 * cold.fill_rate / cold.raw_rate:.0f}% (>= 90%)" if cold.raw_rate else "-",
            ],
            [
                "cold crawl, two-phase",
                "peak RSS, phase one / phase two process",
                f"{cold.rss_mb['phase one']:.0f} / {cold.rss_mb['phase two']:.0f} MB",
                f"< {RSS_TARGET_MB} MB",
            ],
        ]
        if baseline is not None:
            rows += [
                [
                    "cold crawl, one-phase (baseline)",
                    "time to first search answer",
                    f"{baseline['first_answer_s']:.1f} s (peak RSS {baseline['rss_mb']:.0f} MB)",
                    f"two-phase answers {baseline['first_answer_s'] / cold.first_answer_s:.0f}x sooner",
                ]
            ]
        print(f"\n{what}")
    if move is not None:
        rows += [
            [
                f"branch move, {move['files']} files ({move['mode']}, runner)",
                "until searchable / fully hybrid",
                f"{move['searchable_s']:.1f} s / {move['hybrid_s']:.1f} s",
                f"{move['pending']} chunks waiting for a vector after phase one, {move['reused']} reused one",
            ]
        ]
    if rows:
        print(table(rows, ["run", "measure", "result", "target / note"]))
    if quality_rows:
        print()
        print(table(quality_rows, ["target", "state", "mode", "dense coverage", "queries", "R@10", "MRR@10"]))
        by = {(r[0], r[1], r[2]): r for r in quality_rows}
        for name in {str(r[0]) for r in quality_rows}:
            zero, lex = by[(name, "phase one only", "hybrid")], by[(name, "phase two done", "lexical")]
            ok = float(str(zero[5])) >= float(str(lex[5])) and float(str(zero[6])) >= float(str(lex[6]))
            print(
                f"{name}: lexical-only (0%) {'is not worse than' if ok else 'IS WORSE than'} --mode lexical"
            )
    print("\nLines for docs/benchmarks.md:\n")
    if rows:
        print("| run | measure | result | target / note |\n|---|---|---|---|")
        print("\n".join("| " + " | ".join(str(c) for c in r) + " |" for r in rows))
    if quality_rows:
        print(
            "\n| target | state | mode | dense coverage | queries | R@10 | MRR@10 |\n|---|---|---|---|---|---|---|"
        )
        print("\n".join("| " + " | ".join(str(c) for c in r) + " |" for r in quality_rows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=sorted(TARGETS), default="rushstack")
    ap.add_argument("--baseline", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--quality", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--move", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--cold", action=argparse.BooleanOptionalAction, default=True, help="part a (c needs it)")
    ap.add_argument("--move-files", type=int, default=1000)
    ap.add_argument("--sample", type=int, default=1024, help="texts the raw embedder is timed on")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--split", choices=("tune", "test", "all"), default="tune", help="as bench/quality.py")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds the branch move's fill may take")
    args = ap.parse_args()
    mirror = TARGETS[args.target]
    if not (mirrors() / mirror / "repo").exists():  # before any crawl
        raise SystemExit(missing_mirror(mirror, mirrors()))
    cold = baseline = move = None
    with tempfile.TemporaryDirectory(prefix="monodex-two-phase-") as tmp:
        repo, head = temp_clone(mirror, Path(tmp))
        if args.cold:
            with isolated_xdg():
                cold = cold_two_phase(repo, head)
                cold.raw_rate, cold.raw_sample = raw_embedder(args.sample, args.seed)
                if args.move:
                    move = branch_move(repo, head, args.move_files, args.seed, args.timeout)
            if args.baseline:
                with isolated_xdg():
                    baseline = cold_baseline(repo, head)
    quality_rows: list[list[object]] = []
    if args.quality:
        with isolated_xdg():
            quality_rows = quality_by_coverage(args.target)
    report(args.target, cold, baseline, move, quality_rows)


if __name__ == "__main__":
    main()
