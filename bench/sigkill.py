"""Crash safety (issues 12, 16): SIGKILL the runner at random points of full crawls and
incremental refreshes, in either phase (one: chunks stored with their words, the label moved;
two: the fill job adding dense vectors), restart it, and check that every label converges,
`monodex verify` finds no drift and no queued request is lost.

Setup, in a throwaway installation (the four XDG variables under a temp dir): a clone of
tiktok/sparo (or, with --synthetic, a generated TypeScript repository, so it runs without the
mirror) and a tiny "side" repository, both registered as catalogs with their hooks installed,
their `main` labels crawled, and `monodex runner` started as a process. Requests reach the spool
through the real git hooks.

Each trial, the kinds alternating:
  full         `monodex labels rm` the label (its chunks go with it), then an empty commit: the
               hook's request makes the runner crawl and embed the whole tree again;
  incremental  one commit changing 30-100 files (each file gets new text to embed).
Right after the trigger, a commit in the side repository queues a second request behind the
refresh. The runner is SIGKILLed at a point drawn uniformly within the kind's duration (measured
first, without a kill, from the trigger until both labels are fully hybrid), then restarted; the
trial waits (bounded) until the spool is empty and both labels are complete at their branch heads
with no chunk waiting for its dense vector, then runs `monodex verify --json` (through the
runner's socket). A request is lost when it was queued (spool new/ or claimed/) at the kill and
its label did not end at that commit or a descendant of it.

Where a kill landed is what `monodex labels` (the runner's socket, polled every 0.2 s by a thread
while the trial waits to kill) said last before it: phase one while a label is not complete at
its branch head (its refresh queued or running), phase two while both are but chunks wait for
their vector, "after" once both are fully hybrid (the calibrated duration can overshoot).

Usage: .venv/bin/python bench/sigkill.py [--trials 24] [--seed S] [--synthetic]
The seed is printed; pass it back to repeat the same kill points.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg, mirrors, missing_mirror, table  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]
KINDS = ("full", "incremental")
# The crawl on sparo: its code and the docs beside it, without the website's 51 translated pages
# and the recorded test outputs (63 of 186 files, 438 of 736 chunks). A full refresh of all of
# sparo took 128 s with the cores shared (16.6 s alone, docs/benchmarks.md); a trial pays about
# 1.5 of them, so 12 full trials would not fit the ~10 minute budget.
SPARO_POLICY = {
    "version": 1,
    "fileTypes": {".ts": "typescript", ".md": "markdown"},
    "patternsToExclude": ["node_modules/", "lib/", "temp/", "apps/website/", "**/CHANGELOG.md"],
    "patternsToKeep": [],
}
WORDS = "parse render cache token branch label commit crawl spool index query vector merge".split()


def git(repo: Path, *args: str) -> str:
    cmd = ["git", "-c", "user.name=Bench", "-c", "user.email=bench@example.com", *args]
    return subprocess.run(cmd, cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def mdx(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([*MDX, *args], capture_output=True, text=True)
    if check and proc.returncode:
        raise SystemExit(f"monodex {' '.join(args)} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc


# --- repositories -------------------------------------------------------------------------------


def synthetic_repo(path: Path, *, packages: int, files: int, functions: int, seed: int = 0) -> Path:
    """A TypeScript monorepo: `packages` packages of `files` modules with `functions` each.

    Every file names the repository (its folder name): two catalogs never hold the same file at
    the same path, which would share chunks across catalogs (a separate identity problem, not a
    crash-safety one: see the report of issue 12's identity work)."""
    rng = random.Random(seed)
    name = path.name
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text(f"# {name}\n\nA generated monorepo for crash trials.\n")
    for p in range(packages):
        pkg = path / "packages" / f"pkg{p}"
        (pkg / "src").mkdir(parents=True)
        (pkg / "package.json").write_text(json.dumps({"name": f"@{name}/pkg{p}", "version": "1.0.0"}))
        for f in range(files):
            body = []
            for i in range(functions):
                a, b = rng.sample(WORDS, 2)
                body.append(
                    f"/** {a.title()} the {b} for module {f} of {name} package {p}. */\n"
                    f"export function {a}{b.title()}{f}x{i}(input: string): string {{\n"
                    f"  const parts = input.split('{b}');\n"
                    f"  return parts.map((x) => x.trim() + '{a}{i}').join('/');\n}}\n"
                )
            (pkg / "src" / f"mod{f}.ts").write_text("\n".join(body))
    git(path, "add", "-A")
    git(path, "commit", "-qm", "initial")
    return path


def sparo_clone(path: Path) -> Path:
    mirror = mirrors() / "tiktok+sparo" / "repo"
    if not mirror.exists():
        raise SystemExit(missing_mirror("tiktok+sparo", mirrors()) + "\nor pass --synthetic")
    subprocess.run(["git", "clone", "-q", "--shared", str(mirror), str(path)], check=True)
    git(path, "checkout", "-q", "-B", "main")
    (path / "monodex-crawl.json").write_text(json.dumps(SPARO_POLICY, indent=2))
    with (path / ".git" / "info" / "exclude").open("a") as fh:
        fh.write("monodex-crawl.json\n")  # the trials' `git add -A` must not commit it
    return path


# --- the runner process -------------------------------------------------------------------------


class RunnerProcess:
    """`monodex runner` as a child process; its stderr goes to a file in the trial directory."""

    def __init__(self, log: Path, drain_seconds: float) -> None:
        self.log = log
        self.drain_seconds = drain_seconds
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 120.0) -> None:
        from monodex.scheduler.server import wait_listening

        from monodex.disk import paths

        with self.log.open("ab") as err:
            self.proc = subprocess.Popen(
                [*MDX, "runner", "--drain-seconds", str(self.drain_seconds)],
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        if not wait_listening(paths.resolve().socket_path, timeout=timeout):
            raise SystemExit(f"the runner never listened on its socket; see {self.log}")

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)

    def stop(self) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=120)


# --- observing the installation -----------------------------------------------------------------


def spool_entries() -> list[dict[str, Any]]:
    """Requests in the spool's new/ and claimed/ (a claimed one is being refreshed)."""
    from monodex.disk import paths
    from monodex.runner.spool import Malformed, Spool, parse

    sp = Spool(paths.resolve().spool_dir)
    out = []
    for where, folder in (("new", sp.new), ("claimed", sp.claimed)):
        for p in sorted(folder.glob("*.json")) if folder.exists() else ():
            try:
                req = parse(p.read_bytes())
            except (OSError, Malformed):
                continue
            out.append({"where": where, "key": req.key, "commit": req.commit, "attempts": req.attempts})
    return out


def labels_via_socket() -> dict[str, dict[str, Any]] | None:
    """catalog:label -> row, asked of the runner (never opening the shard here: the runner owns it)."""
    from monodex.disk import paths
    from monodex.errors import MonodexError
    from monodex.runner import rpc

    try:
        answer = rpc.call(paths.resolve(), "labels", {})
    except (MonodexError, OSError, ValueError):
        return None
    if answer is None:
        return None
    return {f"{r['catalog']}:{r['label']}": r for r in answer["labels"]}


PHASES = ("one", "two", "after")


def phase_of(rows: dict[str, dict[str, Any]], heads: dict[str, str]) -> str:
    """Where the refreshes towards `heads` are: "one" while a label is not complete at its head,
    "two" while every label is but some chunk waits for its dense vector, else "after"."""
    if not all(
        k in rows and rows[k]["crawl_complete"] and rows[k]["commit_oid"] == c for k, c in heads.items()
    ):
        return "one"
    return "two" if any(rows[k]["dense_pending"] for k in heads) else "after"


def wait_converged(heads: dict[str, str], timeout: float, *, since: float | None = None) -> float | None:
    """Seconds (from `since`, a monotonic time) until the spool is empty and each label is
    complete at its expected commit with every dense vector in place (phase two done); None
    when that did not happen within `timeout`."""
    t0 = time.monotonic() if since is None else since
    while time.monotonic() - t0 < timeout:
        if not spool_entries():
            rows = labels_via_socket()
            if rows is not None and phase_of(rows, heads) == "after":
                return time.monotonic() - t0
        time.sleep(0.1)
    return None


class Watcher:
    """A thread asking the runner for its labels every `every` seconds: the last answer before a
    kill says which phase the kill landed in (a read op: the fill job does not yield to it)."""

    def __init__(self, heads: dict[str, str], every: float = 0.2) -> None:
        self.heads = heads
        self.every = every
        self.last: tuple[float, str] | None = None  # (monotonic time of the answer, phase)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Watcher:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop.set()
        self.thread.join(timeout=60)

    def _run(self) -> None:
        while not self.stop.is_set():
            rows = labels_via_socket()  # None once the runner is killed mid-call
            if rows is not None and not self.stop.is_set():
                self.last = (time.monotonic(), phase_of(rows, self.heads))
            self.stop.wait(self.every)

    def phase_at(self, killed: float) -> tuple[str, float | None]:
        """The phase last seen before the kill and how long before it; "one" when none was seen
        (a kill right after the trigger, before the runner answered)."""
        if self.last is None or self.last[0] > killed:
            return "one", None
        return self.last[1], round(killed - self.last[0], 2)


def verify() -> tuple[bool, dict[str, int]]:
    """`monodex verify --json` (through the runner's socket): clean, and the drift summed."""
    proc = mdx("verify", "--json", check=False)
    try:
        rows = json.loads(proc.stdout)["labels"]
    except (ValueError, KeyError):
        return False, {"unreadable": 1}
    drift: dict[str, int] = {}
    for r in rows:
        for k, v in r.get("drift", {}).items():
            drift[k] = drift.get(k, 0) + int(v)
    return proc.returncode == 0 and all(r["ok"] for r in rows), {k: v for k, v in drift.items() if v}


# --- trials -------------------------------------------------------------------------------------


@dataclass
class Bench:
    repos: dict[str, Path]  # catalog -> work tree; "side" is the bystander
    target: str  # the catalog whose label is killed mid-refresh
    edits: tuple[int, int]  # files changed by an incremental trial, inclusive range
    runner: RunnerProcess
    durations: dict[str, float] = field(default_factory=dict)
    count: int = 0

    def heads(self) -> dict[str, str]:
        return {f"{c}:main": git(p, "rev-parse", "HEAD") for c, p in self.repos.items()}

    def trigger(self, kind: str, rng: random.Random) -> None:
        """Start a refresh of the target label (full or incremental), then queue a side request."""
        self.count += 1
        repo = self.repos[self.target]
        if kind == "full":
            mdx("labels", "rm", "--catalog", self.target, "--label", "main", "--json")
            # an explicit remove wins over the hooks until the branch is tracked (or crawled) again
            mdx("catalog", "track", self.target, "main")
            git(repo, "commit", "-q", "--allow-empty", "-m", f"trial {self.count}: full crawl")
        else:
            crawled = self.crawled()
            hi = min(len(crawled), self.edits[1])
            k = rng.randint(min(self.edits[0], hi), hi)
            for rel in rng.sample(crawled, k):
                a, b = rng.sample(WORDS, 2)
                with (repo / rel).open("a") as fh:
                    if rel.endswith(".md"):
                        fh.write(f"\n\nTrial {self.count} note: {a} before {b}.\n")
                    elif rel.endswith((".ts", ".tsx")):
                        fh.write(f"\nexport const trial{self.count}{a.title()} = '{b} {self.count}';\n")
                    else:
                        fh.write(f"trial {self.count}: {a} {b}\n")
            git(repo, "add", "-A")
            git(repo, "commit", "-qm", f"trial {self.count}: {k} files")
        side = self.repos["side"]
        with (side / "notes.md").open("a") as fh:
            fh.write(f"\nSide note {self.count}.\n")
        git(side, "add", "-A")
        git(side, "commit", "-qm", f"side {self.count}")

    def crawled(self) -> list[str]:
        """Tracked files of the target that its crawl policy indexes: an edit there costs embedding."""
        from monodex.indexer.policy import crawlpolicy

        from monodex.disk import paths

        repo = self.repos[self.target]
        policy = crawlpolicy.load(repo, paths.resolve())
        return [f for f in git(repo, "ls-files").splitlines() if policy.should_crawl(f)]

    def calibrate(self, kind: str, rng: random.Random, timeout: float) -> float:
        """One trial without a kill: how long the refresh takes from the trigger to converged."""
        self.trigger(kind, rng)
        took = wait_converged(self.heads(), timeout)
        if took is None:
            raise SystemExit(f"calibration: the {kind} refresh did not converge in {timeout:.0f} s")
        self.durations[kind] = took
        return took

    def trial(
        self, kind: str, rng: random.Random, timeout: float, delay: float | None = None
    ) -> dict[str, Any]:
        """One refresh triggered and the runner SIGKILLed `delay` seconds later (default: drawn
        from the calibrated duration), restarted, and checked."""
        self.trigger(kind, rng)
        heads = self.heads()
        delay = rng.uniform(0, self.durations[kind]) if delay is None else delay
        with Watcher(heads) as watcher:
            time.sleep(delay)
            killed = time.monotonic()
            self.runner.kill()
        phase, seen_before = watcher.phase_at(killed)
        queued = spool_entries()
        restarted = time.monotonic()
        self.runner.start()
        seconds = wait_converged(heads, timeout, since=restarted)  # the restart's model load included
        ok, drift = verify()
        rows = labels_via_socket() or {}
        lost = [q for q in queued if not self._served(q, rows)]
        return {
            "kind": kind,
            "kill_after_s": round(delay, 2),
            "phase": phase,
            "phase_seen_s_before_kill": seen_before,
            "mid_refresh": any(q["where"] == "claimed" for q in queued),
            "queued_at_kill": len(queued),
            "converged": seconds is not None,
            "seconds": None if seconds is None else round(seconds, 2),
            "verify_clean": ok,
            "drift": drift,
            "lost": lost,
        }

    def _served(self, request: dict[str, Any], rows: dict[str, dict[str, Any]]) -> bool:
        row = rows.get(request["key"])
        if row is None or not row["crawl_complete"]:
            return False
        repo = self.repos[request["key"].split(":")[0]]
        done = subprocess.run(
            ["git", "merge-base", "--is-ancestor", request["commit"], row["commit_oid"]], cwd=repo
        )
        return done.returncode == 0


def setup(
    root: Path,
    *,
    synthetic: tuple[int, int, int] | None,
    drain_seconds: float,
    edits: tuple[int, int] = (30, 100),
) -> Bench:
    """Repositories, catalogs, hooks, first crawls (by hand), and a runner listening.
    `synthetic`: (packages, files per package, functions per file) instead of sparo."""
    if synthetic is None:
        target, repo = "sparo", sparo_clone(root / "sparo")
    else:
        packages, files, functions = synthetic
        target = "synthetic"
        repo = synthetic_repo(root / "synthetic", packages=packages, files=files, functions=functions)
    side = synthetic_repo(root / "side", packages=1, files=2, functions=2, seed=1)
    (side / "notes.md").write_text("# Side notes\n")
    git(side, "add", "-A")
    git(side, "commit", "-qm", "notes")
    repos = {target: repo, "side": side}
    for name, path in repos.items():
        mdx("catalog", "add", name, str(path))
        mdx("crawl", "--catalog", name, "--label", "main", "--commit", "HEAD", "--json")
        mdx("hooks", "install", "--repo", str(path))
    runner = RunnerProcess(root / "runner.stderr", drain_seconds)
    runner.start()
    return Bench(repos=repos, target=target, edits=edits, runner=runner)


def run_trials(
    bench: Bench,
    *,
    trials: int,
    seed: int,
    timeout: float,
    report: Callable[[dict[str, Any]], None] = lambda r: None,
) -> list[dict[str, Any]]:
    """Calibrate each kind once, then `trials` SIGKILL trials alternating full and incremental."""
    rng = random.Random(seed)
    for kind in KINDS:
        bench.calibrate(kind, rng, timeout)
    results = []
    for i in range(trials):
        result = bench.trial(KINDS[i % 2], rng, timeout)
        report(result)
        results.append(result)
    return results


def summary(results: list[dict[str, Any]]) -> str:
    rows = []
    for kind in KINDS:
        rs = [r for r in results if r["kind"] == kind]
        if not rs:
            continue
        secs = [r["seconds"] for r in rs if r["seconds"] is not None]
        rows.append(
            [
                kind,
                len(rs),
                sum(r["mid_refresh"] for r in rs),
                *(sum(r["phase"] == ph for r in rs) for ph in PHASES),
                sum(r["converged"] for r in rs),
                sum(r["verify_clean"] for r in rs),
                sum(r["queued_at_kill"] for r in rs),
                sum(len(r["lost"]) for r in rs),
                f"{statistics.median(secs):.1f}" if secs else "-",
                f"{max(secs):.1f}" if secs else "-",
            ]
        )
    header = [
        "kind",
        "trials",
        "killed mid-refresh",
        "in phase one",
        "in phase two",
        "after both",
        "converged",
        "verify clean",
        "requests queued at kill",
        "requests lost",
        "median s restart -> converged",
        "max s",
    ]
    return table(rows, header)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=24, help="SIGKILL trials, alternating full/incremental")
    ap.add_argument("--seed", type=int, help="RNG seed (default: random, printed)")
    ap.add_argument("--synthetic", action="store_true", help="a generated TS repo instead of sparo")
    ap.add_argument("--timeout", type=float, default=300, help="seconds a trial may take to converge")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    print(
        f"seed {seed} (re-run: bench/sigkill.py --trials {args.trials} --seed {seed}"
        f"{' --synthetic' if args.synthetic else ''})",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="monodex-sigkill-") as tmp, isolated_xdg():
        bench = setup(Path(tmp), synthetic=(6, 10, 6) if args.synthetic else None, drain_seconds=0.5)
        try:
            results = run_trials(
                bench,
                trials=args.trials,
                seed=seed,
                timeout=args.timeout,
                report=lambda r: print(json.dumps(r), flush=True),
            )
        finally:
            bench.runner.stop()
        print(f"calibration (no kill), s: {json.dumps({k: round(v, 1) for k, v in bench.durations.items()})}")
    print(summary(results))


if __name__ == "__main__":
    main()
