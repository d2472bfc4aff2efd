"""Check the installation: config, model, index, catalogs, hooks, runner and spool."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Callable
from typing import Any

from monodex import config, output, paths, spool, writable
from monodex.commands.common import add_json
from monodex.errors import MonodexError

Check = dict[str, Any]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_json(parser)


def _check(name: str, fn: Callable[[], tuple[str, str, str]]) -> Check:
    """fn -> (level, detail, hint); level is ok, warn or error. A MonodexError is an error."""
    try:
        level, detail, hint = fn()
    except MonodexError as exc:
        level, detail, hint = "error", exc.problem, exc.hint
    return {"check": name, "level": level, "detail": detail, "hint": hint}


def _model(cfg: config.Config) -> tuple[str, str, str]:
    from monodex.indexer.embed import check_files, spec_for

    spec = spec_for(cfg.embedder.model)
    check_files(spec)
    return "ok", f"{spec.embedder_id}, {spec.max_tokens} tokens, files present and verified", ""


def _index(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str]:
    from monodex import dispatch

    labels = dispatch.execute(p, "labels", {}, quiet=True)["labels"]
    where = "served by the runner" if p.socket_path.exists() else f"{cfg.qdrant.url or p.shard_dir}"
    if not labels:
        return (
            "warn",
            f"no label is indexed yet ({where})",
            "monodex crawl --catalog C --label main --commit HEAD",
        )
    incomplete = [f"{r['catalog']}:{r['label']}" for r in labels if not r["crawl_complete"]]
    if incomplete:
        return (
            "warn",
            f"{len(labels)} labels; interrupted: {', '.join(incomplete)}",
            "re-run their crawl to finish",
        )
    return "ok", f"{len(labels)} labels, {sum(r['chunks'] for r in labels)} chunks ({where})", ""


def _catalog(cat: config.Catalog) -> tuple[str, str, str]:
    from monodex.hooks.install import installed
    from monodex.indexer import gitobjects

    gitobjects.open_repo(cat.path)
    how = installed(cat.path)
    if not how:
        return "warn", f"{cat.path}: no monodex hooks", f"monodex hooks install --repo {cat.path}"
    return "ok", f"{cat.path}: hooks installed ({how})", ""


def _runner(p: paths.Paths) -> tuple[str, str, str]:
    from monodex.scheduler.runner import running_pid
    from monodex.scheduler.state import JobState

    pid = running_pid(p)
    if pid is None:
        return "warn", "not running: labels are not refreshed by themselves", "monodex runner install-service"
    drain = JobState(p.state_dir / "runner-state.json").read().get("drain") or {}
    if drain.get("outcome") == "failed":
        result = drain.get("result") or {}
        error = result.get("error") or f"{result.get('failed')} refreshes failed"
        return (
            "error",
            f"running, pid {pid}; its last drain failed: {error}",
            result.get("hint") or "see monodex status",
        )
    return "ok", f"running, pid {pid}", ""


def _spool(p: paths.Paths) -> tuple[str, str, str]:
    from monodex.commands.status import quarantine_hint

    queue = spool.default(p.state_dir)
    failed = queue.failed()
    if failed:
        last = failed[-1]
        return (
            "warn",
            f"{len(failed)} refreshes failing; {last.key}: {last.last_error[:200]}",
            "see monodex status",
        )
    quarantined = queue.quarantined()
    if quarantined:
        reasons = "; ".join(f"{q.name}: {q.reason[:200]}" for q in quarantined[:3])
        more = f" (and {len(quarantined) - 3} more)" if len(quarantined) > 3 else ""
        return (
            "warn",
            f"{len(quarantined)} malformed requests set aside: {reasons}{more}",
            quarantine_hint(queue),
        )
    return "ok", f"{len(queue.pending())} pending", ""


def _folders(p: paths.Paths) -> tuple[str, str, str]:
    """The runner writes its state, log and spool here: unwritable, it would stall in silence."""
    s = spool.default(p.state_dir)
    problems = writable.problems([p.state_dir, p.log_dir, s.root, s.new, s.claimed, s.quarantine, s.tmp])
    if problems:
        return "error", "; ".join(x["problem"] for x in problems), problems[0]["hint"]
    return "ok", f"{p.state_dir} writable", ""


def collect(p: paths.Paths) -> list[Check]:
    try:
        cfg = config.load(p)
    except MonodexError as exc:  # nothing else can be checked without it
        return [{"check": "config", "level": "error", "detail": exc.problem, "hint": exc.hint}]
    checks = [{"check": "config", "level": "ok", "detail": str(p.config_file), "hint": ""}]
    checks.append(_check("model", lambda: _model(cfg)))
    checks.append(_check("index", lambda: _index(p, cfg)))
    if not cfg.catalogs:
        checks.append(
            {
                "check": "catalogs",
                "level": "warn",
                "detail": "none registered",
                "hint": "monodex catalog add NAME PATH",
            }
        )
    for cat in cfg.catalogs.values():
        checks.append(_check(f"catalog {cat.name}", functools.partial(_catalog, cat)))
    checks.append(_check("runner", lambda: _runner(p)))
    checks.append(_check("state folders", lambda: _folders(p)))
    checks.append(_check("spool", lambda: _spool(p)))
    return checks


def _render(result: dict[str, Any]) -> str:
    marks = {"ok": "ok   ", "warn": "WARN ", "error": "ERROR"}
    lines = []
    for c in result["checks"]:
        lines.append(f"{marks[c['level']]} {c['check']}: {c['detail']}")
        if c["hint"] and c["level"] != "ok":
            lines.append(f"      next: {c['hint']}")
    return output.sanitize("\n".join(lines))


def run(args: argparse.Namespace) -> int:
    checks = collect(paths.resolve())
    ok = all(c["level"] != "error" for c in checks)
    output.emit({"ok": ok, "checks": checks}, as_json=args.json, render=_render)
    return 0 if ok else 1
