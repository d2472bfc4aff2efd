"""Monorepo scale (issue 36): a cold crawl of a synthetic monorepo of --files files against a
baseline crawled in the same run, without a runner: phase-one seconds, files/s, chunks/s, peak
RSS, index size, search p50 and a new label one commit away.

Usage: .venv/bin/python bench/scale.py [--source MIRROR] [--files 100000] [--baseline-files 5000]
           [--rounds 5] [--label-rounds 3] [--work DIR] [--keep] [--json] [--record]

  bench/scale.py --source /work/.mirror/microsoft+rushstack/repo --files 100000
      rushstack as it is (the baseline, its real history) and its HEAD's tree replicated to
      100,000 files;
  bench/scale.py --source /work/.mirror/babel+babel/repo --files 0
      babel as it is, nothing synthetic;
  bench/scale.py --files 100000
      no mirror: generated TypeScript packages, a baseline of --baseline-files of them.

The synthetic monorepo is one commit written with `git fast-import` into a new repository: the
source's HEAD tree copied under `packages/copy-NNN/` as often as it takes (the last copy cut at
--files), with varied content so that no chunk is shared between copies: every identifier of
five characters or more, keywords and the words the crawl's skip rules look for left alone, gets
the copy's suffix (`parseConfig` -> `parseConfigQab`), so copies chunk alike (same syntax; the
longer names make ~5% more chunks than the source: rushstack 35,710 a copy) but are distinct
files of distinct text (chunk texts two copies share: 37 of 35,710, `export {};` and the like),
and each copy's package.json names its own packages. Binary files are copied as they are (the crawl skips them); a copy's
.gitattributes too, so the same files are marked generated. Its history is that one commit: its
history counting is nothing, the source's is all of its history.

For each repository, in an installation of its own (the real CLI, `python -m monodex`, built-in
crawl policy, default config):
- cold crawl `monodex crawl --commit HEAD --no-wait-dense` (phase one; no runner): its own
  seconds (`searchable_seconds`) and the command's; files (indexed / in the tree) and chunks per
  second of phase one; peak memory of the crawl's process and its child processes (workers,
  git) summed, sampled from /proc/PID/smaps_rollup every 50 ms (the compaction it starts at its
  end counted apart): RSS, which counts a page they share once in each, and beside it PSS
  (shared pages divided between them: the honest sum) and anonymous memory (what the kernel
  cannot reclaim; the rest is the index's mapped files and the libraries, which it can); and the
  store's rolls under crawl.max_memory_mb (its log);
- the compaction it leaves running: seconds after the command returned (waited for);
- index on disk: allocated blocks of its data folder after that compaction (as `du`);
- search p50: lexical, in one long-lived process and as a new `monodex search` process
  (labels.py's method: interleaved with the other repository, rounds x 4 queries, the in-process
  figure the median of five runs), and its ratio to the baseline's;
- a new label one commit away (a commit changing one file on top of HEAD): wall seconds of
  `monodex crawl --no-wait-dense` (and the crawl's own), the median of --label-rounds, each on a
  fresh copy of the installation at one label (labels.py's method), the crawl opening the index
  itself; and the same handed to a runner that holds the index open (a hook's refresh, or any
  crawl while the runner is up), --label-rounds new labels in a row after one that warms it.
Run it alone on the machine for figures: --record appends its rows to docs/benchmarks.md
("Monorepo scale"). 100,000 files take about 600 MB of repository and several GB of index in
--work (default: the system's temp folder).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import build_id, record, table  # noqa: E402
from embed import synthetic_chunk  # noqa: E402
from labels import QUERIES, Build, paired, sparse_copy  # noqa: E402

from monodex.observe import rss  # noqa: E402

HEADING = "## Monorepo scale"
CATALOG = "scale"
File = tuple[bytes, bytes, bytes]  # git mode, path, content
WORD = re.compile(rb"\b[A-Za-z_][A-Za-z0-9_]{4,}\b")
# Left alone in a copy: keywords (TypeScript, JavaScript, Python, shell) and what the crawl's skip
# rules read (policy/generated.py: headers, bundler runtimes, source maps, lock files).
KEEP = frozenset(
    b"""abstract accessor assert asserts async await bigint boolean break catch class const
    constructor continue debugger declare default delete elif except export extends false
    finally function global implements import infer instanceof interface keyof lambda module
    namespace never nonlocal number object override package private protected public raise
    readonly require return satisfies static string super switch symbol throw typeof undefined
    unique unknown until while yield generated autogenerated automatically modify system register
    factory __webpack_modules__ __webpack_require__ sourcemappingurl lockfileversion""".split()
)
UNCHANGED = (b".gitattributes", b"monodex-crawl.json")  # rules about paths: as they are


def copy_tag(k: int) -> bytes:
    """Letters only (an identifier stays one): Qa, Qb, ..., Qba, ..."""
    out = b""
    while True:
        k, r = divmod(k, 26)
        out = bytes([97 + r]) + out
        if not k:
            return b"Q" + out


def template(path: bytes, content: bytes) -> list[bytes] | None:
    """`content` split where a copy's suffix goes (None: copied as it is)."""
    if b"\0" in content or path.rsplit(b"/", 1)[-1] in UNCHANGED:
        return None

    def cut(m: re.Match[bytes]) -> bytes:
        return m[0] if m[0].lower() in KEEP else m[0] + b"\0"

    return WORD.sub(cut, content).split(b"\0")


def git(repo: Path, *args: str, data: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, check=True).stdout


def source_files(source: Path) -> list[File]:
    """Every file of the source's HEAD tree (submodules left out), in git's order."""
    entries = []
    for rec in git(source, "ls-tree", "-r", "-z", "--full-tree", "HEAD").split(b"\0"):
        if rec:
            meta, path = rec.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob" and b"\n" not in path and not path.startswith(b'"'):
                entries.append((mode, path, sha))
    out = git(source, "cat-file", "--batch", data=b"\n".join(sha for _, _, sha in entries) + b"\n")
    files, at = [], 0
    for mode, path, _ in entries:
        head_end = out.index(b"\n", at)
        size = int(out[at:head_end].split()[2])
        files.append((mode, path, out[head_end + 1 : head_end + 1 + size]))
        at = head_end + 1 + size + 1
    return files


def replicated(files: list[File], n: int) -> Iterator[File]:
    """`n` files: copies of `files` under packages/copy-NNN/, each with its own suffix."""
    templates = [template(path, content) for _, path, content in files]
    for k in range(math.ceil(n / len(files))):
        tag, prefix = copy_tag(k), b"packages/copy-%03d/" % k
        for (mode, path, content), pieces in zip(files[: n - k * len(files)], templates, strict=False):
            body = content if pieces is None or mode == b"120000" else tag.join(pieces)
            yield mode, prefix + path, body


PER_PACKAGE = 20  # a package.json, a README.md and 18 TypeScript modules


def generated(n: int, seed: int) -> Iterator[File]:
    """`n` files of generated TypeScript packages (no mirror needed), distinct by their seed."""
    rng = random.Random(seed)
    for i in range(n):
        pkg, j = divmod(i, PER_PACKAGE)
        base = b"packages/pkg-%d-%05d/" % (seed, pkg)
        if j == 0:
            text = json.dumps(
                {"name": f"@scale/pkg-{seed}-{pkg}", "version": "1.0.0", "main": "src/module-2.ts"}
            )
            yield b"100644", base + b"package.json", text.encode() + b"\n"
        elif j == 1:
            words = " ".join(rng.choice(_PROSE) for _ in range(rng.randint(40, 200)))
            yield b"100644", base + b"README.md", f"# pkg-{seed}-{pkg}\n\n{words}\n".encode()
        else:
            parts = [
                f"export function step{seed}x{pkg}x{j}x{k}(input: string): string {{\n{synthetic_chunk(rng)}\n}}\n"
                for k in range(rng.randint(1, 5))
            ]
            yield b"100644", base + b"src/module-%d.ts" % j, "\n".join(parts).encode()


_PROSE = "the package reads its configuration and writes the result to the cache when a build runs".split()


def fast_import(repo: Path, files: Iterable[File], *, ref: str, parent: str | None = None) -> str:
    """A commit of `files` on `ref` (on top of `parent`, changing only those files); its sha."""
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "fast-import", "--quiet", "--done"], stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    w, changes = proc.stdin, []
    for i, (mode, path, content) in enumerate(files, 1):
        w.write(b"blob\nmark :%d\ndata %d\n%s\n" % (i, len(content), content))
        changes.append(b"M %s :%d %s\n" % (mode, i, path))
    message = b"bench/scale.py"
    w.write(b"commit %s\ncommitter bench <bench@example.com> 1700000000 +0000\n" % ref.encode())
    w.write(b"data %d\n%s\n" % (len(message), message))
    if parent:
        w.write(b"from %s\n" % parent.encode())
    w.writelines(changes)
    w.write(b"done\n")
    w.close()
    if proc.wait() != 0:
        raise SystemExit(f"git fast-import failed in {repo}")
    return git(repo, "rev-parse", ref).decode().strip()


def new_repo(path: Path, files: Iterable[File]) -> Path:
    """A repository whose main branch is one commit of `files` (no work tree written)."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    fast_import(path, files, ref="refs/heads/main")
    return path


def clone(source: Path, path: Path) -> Path:
    """The source as it is, history and all, sharing its objects; no work tree written."""
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(source), str(path)], check=True)
    return path


def edit_commit(repo: Path, k: int) -> str:
    """A commit one away from HEAD, appending a paragraph to one markdown file (k: which edit)."""
    head = git(repo, "rev-parse", "HEAD").decode().strip()
    names = git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD").split(b"\0")
    path = next((p for p in names if p.endswith(b".md")), None) or next(
        p for p in names if p.endswith(b".ts")
    )
    body = (
        git(repo, "cat-file", "blob", f"HEAD:{path.decode()}") + b"\n\nEdited by bench/scale.py (%d).\n" % k
    )
    return fast_import(repo, [(b"100644", path, body)], ref=f"refs/heads/edit-{k}", parent=head)


@dataclass
class Subject:
    name: str
    build: Build
    tree_files: int
    out: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, float] = field(default_factory=dict)


def tree_pids(pid: int) -> list[int]:
    """`pid` and its descendants now (Linux)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                todo += [int(c) for c in (task / "children").read_text().split()]
            except (OSError, ValueError):
                pass
    return out


def memory_mb(pid: int) -> tuple[float, float, float]:
    """(RSS, PSS, anonymous) of `pid` now, from /proc/PID/smaps_rollup (Linux; zeros when gone).
    RSS counts a page shared with another process in each (the crawl and its workers share the
    interpreter's and the libraries' pages), PSS divides it between them; anonymous memory is
    what the kernel cannot take back without swap, where file-backed pages (the index's mapped
    files, clean once written back) it can."""
    fields = {"Rss:": 0.0, "Pss:": 0.0, "Anonymous:": 0.0}
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                name, _, rest = line.decode().partition(" ")
                if name in fields:
                    fields[name] = int(rest.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return fields["Rss:"], fields["Pss:"], fields["Anonymous:"]


def running(pid: int) -> bool:
    """Alive and not a zombie (a container's first process may never reap the orphan)."""
    try:
        return rss.alive(pid) and Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def cold_crawl(s: Subject, work: Path) -> None:
    """Phase one from nothing, sampled; then the compaction it started, waited for."""
    b, log = s.build, work / f"{s.build.name}-crawl.log"
    argv = [b.python, "-m", "monodex", "crawl", "--catalog", CATALOG, "--label", "main", "--commit", "HEAD"]
    samples: list[dict[int, tuple[float, float, float]]] = []
    with open(log, "wb") as err, tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [*argv, "--no-wait-dense", "--json"], env=b.env, stdout=out, stderr=err, cwd=work
        )
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            samples.append({p: memory_mb(p) for p in tree_pids(proc.pid)})
            time.sleep(0.05)
        s.figures["command_s"] = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode()
    if proc.returncode != 0:
        raise SystemExit(f"{s.name}: the crawl failed ({proc.returncode}); see {log}")
    s.out = json.loads(text)
    compactor = int((s.out.get("compaction") or {}).get("pid") or 0)
    for i, name in enumerate(("peak_mb", "peak_pss_mb", "peak_anon_mb")):
        sums = (sum(v[i] for p, v in x.items() if p != compactor) for x in samples)
        s.figures[name] = max(sums, default=0.0)
    s.figures["crawl_process_peak_mb"] = usage.ru_maxrss / 1024
    s.figures["rolls"] = log.read_bytes().count(b"crawl.rolled")
    t0, peak = time.perf_counter(), 0.0
    while compactor and running(compactor):
        peak = max(peak, rss.peak_mb(compactor) or 0.0)
        time.sleep(0.1)
    s.figures["compaction_s"] = time.perf_counter() - t0 if compactor else 0.0
    s.figures["compaction_peak_mb"] = peak
    s.figures["index_mb"] = b.size_mb()


def trial_copy(s: Subject, work: Path) -> Build:
    trial = Build(f"{s.build.name}-trial", s.build.python, work, s.build.repo, catalog=CATALOG)
    sparse_copy(work / s.build.name, work / trial.name)
    os.sync()  # the copy's dirty pages written back during the timed crawl cost it (labels.py)
    return trial


def remove(folder: Path) -> None:
    """A trial's installation removed; when something wrote into it meanwhile (a compaction the
    trial's crawl started), what and who are printed, and it is removed once that is done."""
    try:
        shutil.rmtree(folder)
        return
    except OSError as exc:
        left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))[:20]
        procs = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
        mine = [line for line in procs.splitlines() if "monodex" in line and "scale.py" not in line]
        print(f"removing {folder}: {exc}; left {left}; processes {mine}", file=sys.stderr, flush=True)
    time.sleep(5)
    shutil.rmtree(folder)


def new_label(s: Subject, work: Path, rounds: int) -> None:
    """A label one commit away, each round on a fresh copy of the one-label installation, by a
    crawl of its own that opens the index (no runner); then, on one more copy, handed to a runner
    that holds the index open already (what a hook's refresh does), one new label a round."""
    trials = []
    for k in range(rounds):
        commit = edit_commit(s.build.repo, k)
        trial = trial_copy(s, work)
        trials.append(trial.crawl(f"edit-{k}", commit))
        remove(work / trial.name)
    s.figures["away_s"], s.figures["away_crawl_s"] = (statistics.median(x) for x in zip(*trials, strict=True))
    trial, served = trial_copy(s, work), []
    runner = trial.runner()
    try:
        trial.crawl("edit-warm", edit_commit(s.build.repo, rounds))  # the runner's first request
        for k in range(rounds):
            served.append(trial.crawl(f"edit-runner-{k}", edit_commit(s.build.repo, rounds + 1 + k)))
    finally:
        runner.terminate()
        runner.wait()
        remove(work / trial.name)
    s.figures["runner_away_s"], s.figures["runner_away_crawl_s"] = (
        statistics.median(x) for x in zip(*served, strict=True)
    )


def searches(subjects: list[Subject], rounds: int) -> None:
    """Search p50 of the synthetic repository paired with the baseline's, or alone."""
    if len(subjects) == 2:
        (cli, cli1), (inp, inp1) = paired((subjects[1].build, subjects[0].build), rounds)
        subjects[1].figures.update(cli_p50_ms=cli, p50_ms=inp)
        subjects[0].figures.update(cli_p50_ms=cli1, p50_ms=inp1)
        return
    b = subjects[0].build
    b.search_wall(QUERIES[0])  # warm: the first process after a crawl reads the shard from disk
    cli = [b.search_wall(q) * 1e3 for q in QUERIES * rounds]
    inproc = [b.in_process(rounds)["p50_ms"] for _ in range(5)]
    subjects[0].figures.update(cli_p50_ms=statistics.median(cli), p50_ms=statistics.median(inproc))


def chunks(out: dict[str, Any]) -> int:
    """The chunks a cold crawl stored: phase one's wait for their vectors (pending), a one-phase
    crawl's were embedded."""
    return int(out["chunks_embedded"]) + int(out.get("chunks_pending", 0))


def row(s: Subject, baseline: Subject) -> list[object]:
    f, out = s.figures, s.out
    phase_one = float(out.get("searchable_seconds", out["seconds"]))
    ratio = f" ({f['p50_ms'] / baseline.figures['p50_ms']:.2f}x)" if s is not baseline else ""
    compaction = (
        f"{f['compaction_s']:.1f} ({f['compaction_peak_mb']:.0f} MB)" if f["compaction_s"] else "none"
    )
    return [
        f"{time.strftime('%Y-%m-%d')} {build_id()}",
        s.name,
        f"{out['files_total']:,} / {s.tree_files:,}",
        f"{chunks(out):,}",
        f"{phase_one:.1f} ({f['command_s']:.1f})",
        f"{out['files_total'] / phase_one:,.0f}",
        f"{chunks(out) / phase_one:,.0f}",
        f"{f['peak_mb']:.0f} ({f['rolls']:.0f})",
        f"{f['peak_pss_mb']:.0f} / {f['peak_anon_mb']:.0f}",
        compaction,
        f"{f['index_mb']:.0f}",
        f"{f['p50_ms']:.1f}{ratio} / {f['cli_p50_ms']:.0f}",
        f"{f['away_s']:.2f} ({f['away_crawl_s']:.2f})",
        f"{f['runner_away_s']:.2f} ({f['runner_away_crawl_s']:.2f})",
    ]


HEADER = [
    "run",
    "repository",
    "files indexed / in tree",
    "chunks",
    "phase one s (command)",
    "files/s",
    "chunks/s",
    "peak RSS MB (rolls)",
    "peak PSS / anonymous MB",
    "compaction after s (peak)",
    "index MB",
    "search p50 ms in-process (x baseline) / CLI",
    "1 commit away s (crawl)",
    "1 commit away through a runner s (crawl)",
]


def subjects_of(args: argparse.Namespace, work: Path) -> list[Subject]:
    """The baseline, then the synthetic repository (unless --files 0), their repositories made."""
    made: list[tuple[str, Path]] = []
    if args.source:
        source = Path(args.source).resolve()
        name = (source.parent.name if source.name in ("repo", ".git") else source.name).replace("+", "/")
        made.append((name, clone(source, work / "baseline-repo")))
        if args.files:
            files = source_files(source)
            repo = new_repo(work / "synthetic-repo", replicated(files, args.files))
            made.append((f"synthetic {args.files:,} from {name}", repo))
    else:
        made.append(
            (
                f"generated {args.baseline_files:,}",
                new_repo(work / "baseline-repo", generated(args.baseline_files, 1)),
            )
        )
        if args.files:
            made.append(
                (f"generated {args.files:,}", new_repo(work / "synthetic-repo", generated(args.files, 2)))
            )
    out = []
    for (name, repo), slug in zip(made, ("baseline", "synthetic"), strict=False):
        tree = len(git(repo, "ls-tree", "-r", "-z", "--name-only", "HEAD").split(b"\0")) - 1
        out.append(Subject(name, Build(slug, sys.executable, work, repo, catalog=CATALOG), tree))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--source", help="a git repository (a mirror) to replicate and to crawl as the baseline")
    ap.add_argument("--files", type=int, default=100_000, help="files in the synthetic monorepo (0: none)")
    ap.add_argument(
        "--baseline-files", type=int, default=5000, help="without --source: the generated baseline's files"
    )
    ap.add_argument("--rounds", type=int, default=5, help="search rounds over the queries (labels.py's)")
    ap.add_argument("--label-rounds", type=int, default=3, help="new labels one commit away (median)")
    ap.add_argument("--work", help="where the repositories and installations go (default: the temp folder)")
    ap.add_argument("--keep", action="store_true", help="keep them afterwards (their path is printed)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--record", action="store_true", help="append the rows to docs/benchmarks.md (Monorepo scale)"
    )
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="monodex-scale-", dir=args.work))
    try:
        t0 = time.perf_counter()
        subjects = subjects_of(args, work)
        print(
            f"repositories made in {time.perf_counter() - t0:.0f} s under {work}", file=sys.stderr, flush=True
        )
        for s in subjects:
            s.build.mdx("catalog", "add", CATALOG, str(s.build.repo))
            cold_crawl(s, work)
            print(f"{s.name}: {s.out['files_total']} files crawled: {s.figures}", file=sys.stderr, flush=True)
            new_label(s, work, args.label_rounds)
        searches(subjects, args.rounds)
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)
    rows = [row(s, subjects[0]) for s in subjects]
    if args.json:
        print(
            json.dumps([{"name": s.name, "tree_files": s.tree_files, **s.out, **s.figures} for s in subjects])
        )
    else:
        print(table(rows, HEADER))
    if args.record:
        record(HEADING, rows)


if __name__ == "__main__":
    main()
