"""Show the runner, the spool, the jobs' last outcomes and each label's freshness."""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

from monodex import config, dispatch, output, paths, progress, spool
from monodex.commands.common import add_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json(parser)


def render(r: dict[str, Any]) -> str:
    run = r["runner"]
    lines = [
        f"runner: {_runner_line(run)}",
        f"spool: {r['spool']['pending']} pending, {r['spool']['failed']} failing",
    ]
    for name, job in sorted(r["jobs"].items()):
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["finished_at"]))
        lines.append(f"{name}: {'ok' if job['ok'] else 'FAILED'} at {when}")
    for lb in r["labels"]:
        if "error" in lb:  # the index could not be read (full disk, busy): say why
            lines.append(f"labels: {lb['error']}")
            continue
        lines.append(
            f"{lb['catalog']}:{lb['label']}\t{_commit(lb)}\t{lb['freshness']}"
        )
    return "\n".join(lines)


def _commit(lb: dict[str, Any]) -> str:
    if lb.get("source_kind") == "working-directory":
        return "(working dir)"
    return str(lb.get("commit_oid", ""))[:12] + ("" if lb.get("crawl_complete", True) else " (incomplete)")


def _runner_line(run: dict[str, Any]) -> str:
    if not run["running"]:
        return "not running (start it with 'monodex runner' or its systemd service)"
    up = run.get("uptime_seconds")
    since = f", up {progress.duration(up)}" if up is not None else ""
    return f"running, pid {run['pid']}{since}"


def _labels(p: paths.Paths) -> list[dict[str, Any]]:
    from monodex.errors import MonodexError
    from monodex.indexer import gitobjects
    from monodex.indexer.freshness import tracked_branch

    cfg = config.load(p)
    try:
        rows: list[dict[str, Any]] = dispatch.execute(p, "labels", {}, quiet=True)["labels"]
    except MonodexError as exc:
        return [{"error": exc.problem}]
    for row in rows:
        row["freshness"], row["branch"], row["branch_commit"] = "unknown", None, None
        cat = cfg.catalogs.get(row["catalog"])
        if cat is None or row["source_kind"] != "git-commit":
            continue
        try:
            repo = gitobjects.open_repo(cat.path)
        except MonodexError:
            continue
        row["branch"] = tracked_branch(repo, row["label"])
        row["branch_commit"] = repo.branch_commit(row["branch"]) if row["branch"] else None
        if row["branch_commit"]:
            fresh = row["crawl_complete"] and row["branch_commit"] == row["commit_oid"]
            row["freshness"] = "fresh" if fresh else "stale"
    return rows


def collect(p: paths.Paths) -> dict[str, Any]:
    """The status answer (CLI --json, the MCP status tool)."""
    from monodex.runnerpid import pid_file, running_pid
    from monodex.scheduler import jobs

    s = spool.default(p.state_dir)
    pending = s.pending()
    oldest = min((pth.stat().st_mtime for pth in pending), default=None)
    pid = running_pid(p)
    uptime = None
    if pid is not None:
        with contextlib.suppress(OSError):
            uptime = round(time.time() - pid_file(p).stat().st_mtime, 1)
    return {
        "runner": {
            "running": pid is not None,
            "pid": pid,
            "uptime_seconds": uptime,
            "socket": str(p.socket_path) if pid is not None and p.socket_path.exists() else None,
        },
        "spool": {
            "pending": len(pending),
            "failed": len(s.failed()),
            "oldest_age_seconds": round(time.time() - oldest, 1) if oldest else None,
            "errors": [{"label": f.key, "attempts": f.attempts, "error": f.last_error} for f in s.failed()],
        },
        "labels": _labels(p),
        "jobs": jobs.JobState(p.state_dir / "runner-state.json").read(),
    }


def run(args: argparse.Namespace) -> int:
    output.emit(collect(paths.resolve()), as_json=args.json, render=render)
    return 0
