"""Issue 12: a burst of commits, each branch commit followed at once by a checkout, through the
installed hooks (the direct way), the spool and one drain with the real indexer. Every label must
end at its branch's last commit.

Usage: .venv/bin/python bench/hooks_burst.py [MAIN_COMMITS] [BRANCHES] [COMMITS_PER_BRANCH]
Defaults: 60 commits on main, 3 branches x 5 commits (the issue's scenario). The last main commit
is followed at once by `git checkout -b tmp` (an untracked branch).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg  # noqa: E402

MDX = [sys.executable, "-m", "monodex"]


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout.strip()


def burst_script(main_commits: int, branches: list[str], per_branch: int) -> tuple[str, int]:
    """The shell script, and how many hook invocations it makes (one log line each)."""
    lines, invocations, done = [], 0, 0
    every = max(1, main_commits // per_branch)
    for i in range(main_commits):
        lines.append(f"echo 'export const m = {i};' > src/main.ts && git commit -qam m{i}")
        invocations += 1
        if (i + 1) % every == 0 and done < per_branch:
            done += 1
            for b in branches:
                name = b.replace("/", "_")
                lines.append(
                    f"git checkout -q {b} && echo 'export const {name} = {i};' > src/{name}.ts"
                    f" && git add -A && git commit -qm {name}{i} && git checkout -q main"
                )
                invocations += 3  # post-checkout, post-commit, post-checkout
    lines.append("git checkout -q -b tmp")
    return "\n".join(lines), invocations + 1


def hook_lines(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def main() -> None:
    main_commits = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    n_branches = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    per_branch = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    branches = [f"feature/b{i}" for i in range(n_branches)]
    os.environ["PATH"] = f"{Path(sys.executable).parent}:{os.environ['PATH']}"
    identity = {
        f"GIT_{who}_{what}": v
        for who in ("AUTHOR", "COMMITTER")
        for what, v in (("NAME", "b"), ("EMAIL", "b@x"))
    }
    os.environ.update(identity)
    with isolated_xdg(), tempfile.TemporaryDirectory() as tmp:
        from monodex.indexer.ops import background
        from monodex.indexer.session import Session
        from monodex.scheduler import jobs

        from monodex.disk import paths
        from monodex.runner.spool import Spool
        from monodex.settings import config

        repo = Path(tmp) / "burst"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        (repo / "src").mkdir()
        (repo / "src" / "main.ts").write_text("export const m = -1;\n")
        git(repo, "add", "-A")
        git(repo, "commit", "-qm", "init")
        for b in branches:
            git(repo, "branch", b)
        subprocess.run([*MDX, "catalog", "add", "burst", str(repo)], check=True, capture_output=True)
        p = paths.resolve()
        cfg = json.loads(p.config_file.read_text())
        cfg["catalogs"]["burst"]["track"] = ["feature/*"]
        p.config_file.write_text(json.dumps(cfg))
        subprocess.run([*MDX, "hooks", "install", "--repo", str(repo)], check=True, capture_output=True)

        script, invocations = burst_script(main_commits, branches, per_branch)
        t0 = time.monotonic()
        subprocess.run(["sh", "-ec", script], cwd=repo, check=True, capture_output=True)
        burst_s = time.monotonic() - t0
        log = p.log_dir / "hooks.log"
        deadline = time.monotonic() + 300
        while hook_lines(log) < invocations and time.monotonic() < deadline:
            time.sleep(0.1)
        settled_s = time.monotonic() - t0
        logged = hook_lines(log)
        spool = Spool(p.spool_dir)
        queued = len(spool.pending())

        def run(request):  # type: ignore[no-untyped-def]
            with Session(config.load(p), p) as s:
                return background.refresh_label(s, request)

        t1 = time.monotonic()
        report = jobs.drain(spool, run)
        drain_s = time.monotonic() - t1
        out = subprocess.run([*MDX, "labels", "--json"], check=True, capture_output=True, text=True).stdout
        have = {r["label"]: r["commit_oid"] for r in json.loads(out)["labels"]}
        want = {b: git(repo, "rev-parse", b) for b in ["main", *branches]}
        good = sum(have.get(label) == sha for label, sha in want.items())

    print(
        f"burst: {main_commits} commits on main, {n_branches} branches x {per_branch} commits, switch after each"
    )
    print(f"hook invocations: {logged}/{invocations} logged; spool entries: {queued}")
    print(f"refreshes: {len(report.refreshed)}, failed: {len(report.failed)}")
    print(
        f"seconds: burst {burst_s:.1f}, hooks settled {settled_s:.1f}, drain {drain_s:.1f} (shared cores: not a figure)"
    )
    print(f"labels at their branch's last commit: {good}/{len(want)}")
    for label, sha in want.items():
        if have.get(label) != sha:
            print(f"  {label}: label at {have.get(label)}, branch at {sha}")
    raise SystemExit(0 if good == len(want) else 1)


if __name__ == "__main__":
    main()
