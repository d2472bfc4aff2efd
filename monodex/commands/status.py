"""Show the runner, the refresh in progress, the spool, the jobs' last outcomes and each label's
freshness."""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

from monodex import config, dispatch, output, paths, progress, spool, writable
from monodex.commands.common import add_json


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json(parser)


def render(r: dict[str, Any]) -> str:
    run = r["runner"]
    lines = [f"runner: {_runner_line(run)}"]
    if r.get("refresh"):
        lines.append(_refresh_line(r["refresh"]))
    lines.extend(_spool_lines(r["spool"], running=run["running"]))
    running = (r.get("refresh") or {}).get("state") == "running"
    for name, job in sorted(r["jobs"].items()):
        # the last finished drain: while one runs, "drain: ok" alone would read as "nothing to do"
        lines.append(
            ("drain: running now; last " if running and name == "drain" else "") + _job_line(name, job)
        )
    for problem in r.get("problems", []):
        lines += [f"ERROR {problem['problem']}", f"  next: {problem['hint']}"]
    for lb in r["labels"]:
        if "error" in lb:  # the index could not be read (full disk, busy): say why
            lines.append(f"labels: {lb['error']}")
            continue
        fresh = lb["freshness"] + (" (refreshing)" if lb.get("refreshing") else "")
        lines.append(f"{lb['catalog']}:{lb['label']}\t{_commit(lb)}\t{fresh}")
    return output.sanitize("\n".join(lines))


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


def _refresh_line(rf: dict[str, Any]) -> str:
    done = f"{rf['files_done']}/{rf['files_total']} files embedded" if rf.get("files_total") else "planning"
    what = f"{rf['label']} to {str(rf['commit'])[:12]}: {done}, {rf.get('chunks_embedded', 0)} chunks"
    if rf["state"] == "running":
        return f"refreshing {what}, started {progress.duration(time.time() - rf['started_at'])} ago"
    return f"interrupted refresh of {what} (its runner stopped; the request stays queued and resumes)"


def _spool_lines(sp: dict[str, Any], *, running: bool) -> list[str]:
    queued = sp["pending"] + sp["claimed"]
    if running:
        lines = [f"spool: {sp['pending']} pending, {sp['claimed']} being refreshed, {sp['failed']} failing"]
    elif queued:
        lines = [
            f"spool: {_n(queued, 'request')} queued, {sp['failed']} failing; they run when the runner starts"
        ]
    else:
        lines = ["spool: empty"]
    if sp["quarantined"]:
        lines.append(
            f"spool: {_n(sp['quarantined'], 'malformed request')} set aside in {sp['quarantine_dir']}:"
        )
        lines += [f"  {q['name']}: {q['reason']}" for q in sp["quarantine"][:10]]
        lines.append(f"  next: {sp['quarantine_hint']}")
    return lines


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _job_line(name: str, job: dict[str, Any]) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["finished_at"]))
    outcome = job.get("outcome") or ("ok" if job["ok"] else "failed")
    line = f"{name}: {outcome if outcome == 'ok' else outcome.upper()} at {when}"
    result = job.get("result") or {}
    if outcome == "interrupted" and result.get("interrupted"):
        line += f" ({result['interrupted'].get('label')}; its request stays queued)"
    elif outcome == "failed" and result.get("error"):
        line += f": {result['error']}"
    return line


def _labels(p: paths.Paths) -> list[dict[str, Any]]:
    from monodex.errors import MonodexError
    from monodex.indexer.git import gitobjects
    from monodex.indexer.write.freshness import tracked_branch

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


def _refresh(record: Any, pid: int | None) -> dict[str, Any] | None:
    """The runner's in-progress record; one left by a runner that is gone (killed) is interrupted."""
    if not isinstance(record, dict):
        return None
    alive = pid is not None and record.get("pid") == pid
    return {**record, "state": "running" if alive else "interrupted"}


def _spool(s: spool.Spool) -> dict[str, Any]:
    pending = s.pending()
    claimed = sorted(s.claimed.glob("*.json")) if s.claimed.is_dir() else []
    oldest = min((pth.stat().st_mtime for pth in pending + claimed), default=None)
    failed = s.failed()
    quarantined = s.quarantined()
    return {
        "pending": len(pending),
        "claimed": len(claimed),  # being refreshed, or left by a runner that died (recovered at start)
        "failed": len(failed),
        "oldest_age_seconds": round(time.time() - oldest, 1) if oldest else None,
        "errors": [{"label": f.key, "attempts": f.attempts, "error": f.last_error} for f in failed],
        "quarantined": len(quarantined),
        "quarantine": [{"name": q.name, "reason": q.reason} for q in quarantined],
        "quarantine_dir": str(s.quarantine),
        "quarantine_hint": quarantine_hint(s) if quarantined else "",
    }


def quarantine_hint(s: spool.Spool) -> str:
    return (
        f"these requests were never run; read the reasons, then delete them (rm {s.quarantine}/*); "
        "the next commit queues the label again, or run 'monodex crawl'"
    )


def collect(p: paths.Paths) -> dict[str, Any]:
    """The status answer (CLI --json, the MCP status tool)."""
    from monodex.runnerpid import pid_file, running_pid
    from monodex.scheduler.state import JobState

    s = spool.default(p.state_dir)
    pid = running_pid(p)
    uptime = None
    if pid is not None:
        with contextlib.suppress(OSError):
            uptime = round(time.time() - pid_file(p).stat().st_mtime, 1)
    state = JobState(p.state_dir / "runner-state.json").read()
    refresh = _refresh(state.pop("refresh", None), pid)
    labels = _labels(p)
    for row in labels:
        row["refreshing"] = bool(refresh and refresh["state"] == "running" and refresh["label"] == _key(row))
    return {
        "runner": {
            "running": pid is not None,
            "pid": pid,
            "uptime_seconds": uptime,
            "socket": str(p.socket_path) if pid is not None and p.socket_path.exists() else None,
        },
        "refresh": refresh,
        "spool": _spool(s),
        "problems": writable.problems(
            [p.state_dir, p.log_dir, s.root, s.new, s.claimed, s.quarantine, s.tmp]
        ),
        "labels": labels,
        "jobs": state,
    }


def _key(row: dict[str, Any]) -> str:
    return f"{row.get('catalog')}:{row.get('label')}"


def run(args: argparse.Namespace) -> int:
    output.emit(collect(paths.resolve()), as_json=args.json, render=render)
    return 0
