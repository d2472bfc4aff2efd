"""What the hooks add to `git commit`: median and p95 over N commits, in one run, for a repository
without hooks (baseline), with `monodex hooks install`, and with the pre-commit framework.

Usage: .venv/bin/python bench/hooks.py [N]
Target (issue 4): direct hooks add < 30 ms at the median.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import isolated_xdg, table  # noqa: E402

BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[1]


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def make_repo(base: Path, name: str) -> Path:
    repo = base / name
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.ts").write_text("export const a = 0;\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "init")
    return repo


def commits(repo: Path, n: int) -> list[float]:
    times = []
    for i in range(n):
        (repo / "a.ts").write_text(f"export const a = {i + 1};\n")
        git(repo, "add", "a.ts")
        t0 = time.perf_counter()
        git(repo, "commit", "-qm", f"c{i}")
        times.append((time.perf_counter() - t0) * 1000)
    return times


def compile_bytecode() -> None:
    """An installed package ships compiled bytecode; an editable checkout run with
    PYTHONDONTWRITEBYTECODE=1 would recompile every module in every background hook process, and
    that CPU competes with the next commit (+8 ms at the median, measured)."""
    import compileall

    for folder in ("monodex", "hooks", "scheduler", "indexer"):
        compileall.compile_dir(ROOT / folder, quiet=1)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    compile_bytecode()
    env_path = f"{BIN}:{os.environ['PATH']}"
    os.environ["PATH"] = env_path
    for k, v in (
        ("GIT_AUTHOR_NAME", "b"),
        ("GIT_AUTHOR_EMAIL", "b@x"),
        ("GIT_COMMITTER_NAME", "b"),
        ("GIT_COMMITTER_EMAIL", "b@x"),
    ):
        os.environ[k] = v
    rows = []
    with isolated_xdg(), tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain = make_repo(base, "plain")
        direct = make_repo(base, "direct")
        framework = make_repo(base, "framework")
        for repo in (direct, framework):
            subprocess.run(
                [str(BIN / "monodex"), "catalog", "add", repo.name, str(repo)],
                check=True,
                capture_output=True,
            )
        subprocess.run(
            [str(BIN / "monodex"), "hooks", "install", "--repo", str(direct)], check=True, capture_output=True
        )
        (framework / ".pre-commit-config.yaml").write_text(
            "repos:\n- repo: local\n  hooks:\n  - id: monodex\n    name: monodex\n    entry: monodex-hook --pre-commit\n"
            "    language: unsupported\n    always_run: true\n    pass_filenames: false\n    stages: [post-commit]\n"
        )
        git(framework, "add", "-A")
        git(framework, "commit", "-qm", "pre-commit config")
        subprocess.run(
            [str(BIN / "pre-commit"), "install", "--hook-type", "post-commit"],
            cwd=framework,
            check=True,
            capture_output=True,
            env={**os.environ, "PRE_COMMIT_HOME": str(base / "pc")},
        )
        os.environ["PRE_COMMIT_HOME"] = str(base / "pc")
        results = {
            name: commits(repo, n)
            for name, repo in (
                ("no hooks", plain),
                ("monodex hooks", direct),
                ("pre-commit + monodex", framework),
            )
        }
    base_med = statistics.median(results["no hooks"])
    for name, t in results.items():
        med, p95 = statistics.median(t), sorted(t)[int(len(t) * 0.95)]
        rows.append([name, n, f"{med:.1f}", f"{p95:.1f}", f"{med - base_med:+.1f}"])
    print(table(rows, ["setup", "commits", "median ms", "p95 ms", "added at median ms"]))


if __name__ == "__main__":
    main()
