"""Check the installation: config, model, index, catalogs, hooks, runner and spool."""

from __future__ import annotations

import argparse
import contextlib
import functools
from collections.abc import Callable
from typing import Any

from monodex.commands.common import add_json, crawl_command
from monodex.disk import paths, writable
from monodex.errors import MonodexError
from monodex.front import route
from monodex.front.render_freshness import day
from monodex.observe import output
from monodex.requests import LabelsRequest
from monodex.runner import spool
from monodex.settings import config

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
    from monodex.indexer.embed.spec import spec_for
    from monodex.indexer.embed.stamp import check_files

    spec = spec_for(cfg.embedder.model)
    check_files(spec)
    return "ok", f"{spec.embedder_id}, {spec.max_tokens} tokens, files present and verified", ""


def _index(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str]:
    labels = route.execute(p, LabelsRequest(), quiet=True)["labels"]
    where = "served by the runner" if p.socket_path.exists() else f"{cfg.qdrant.shown_url or p.shard_dir}"
    if not labels:
        first = next(iter(cfg.catalogs.values()), None)
        hint = crawl_command(first) if first else "monodex catalog add NAME PATH, then its crawl"
        return "warn", f"no label is indexed yet ({where})", hint
    incomplete = [f"{r['catalog']}:{r['label']}" for r in labels if not r["crawl_complete"]]
    if incomplete:
        return (
            "warn",
            f"{len(labels)} labels; interrupted: {', '.join(incomplete)}",
            "re-run their crawl to finish",
        )
    waiting = {f"{r['catalog']}:{r['label']}": r.get("dense_pending", 0) for r in labels}
    waiting = {k: n for k, n in waiting.items() if n}
    if waiting and not p.socket_path.exists():  # with the runner up its fill job is on it
        detail = ", ".join(f"{k} ({n} chunks)" for k, n in sorted(waiting.items()))
        return (
            "warn",
            f"chunks wait for their dense vector and no runner is up to add them: {detail}; "
            "they are found by their words only until then",
            "start the runner ('monodex runner' or its service), or run the label's crawl with --wait-dense",
        )
    return "ok", f"{len(labels)} labels, {sum(r['chunks'] for r in labels)} chunks ({where})", ""


def _old_models(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str] | None:
    """Collections of other models a model change left on disk (read from their folders only)."""
    from monodex.indexer.embed.spec import spec_for
    from monodex.indexer.store import collections

    if cfg.qdrant.url:
        return None
    root = cfg.qdrant.path or p.shard_dir
    active = collections.active(cfg.qdrant, p, spec_for(cfg.embedder.model).embedder_id).collection
    base = cfg.qdrant.collection
    old = [
        d
        for d in (sorted(root.iterdir()) if root.is_dir() else [])
        if d.name != active
        and (d / collections.META).is_file()
        and (d.name == base or d.name.startswith(base + "--"))
    ]
    if not old:
        return None
    size = sum(f.stat().st_size for d in old for f in d.rglob("*") if f.is_file())
    return (
        "warn",
        f"collections of other models on disk: {', '.join(d.name for d in old)} ({size / 1e6:.1f} MB)",
        "monodex gc --old-models --dry-run (lists them; deletes only what no label needs any more)",
    )


def _leftovers(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str] | None:
    """Labels of catalogs no longer in config.json: nothing refreshes them and gc keeps them."""
    labels = route.execute(p, LabelsRequest(), quiet=True)["labels"]
    left: dict[str, int] = {}
    for r in labels:
        if r["catalog"] not in cfg.catalogs:
            left[r["catalog"]] = left.get(r["catalog"], 0) + 1
    if not left:
        return None
    detail = ", ".join(f"{name} ({n} labels)" for name, n in sorted(left.items()))
    hint = "; ".join(f"monodex catalog rm {name} --purge" for name in sorted(left))
    return "warn", f"catalogs no longer registered still have labels in the index: {detail}", hint


def _gone_branches(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str] | None:
    """Labels whose branch was deleted: kept for the catalog's grace period, then removed."""
    gone = []
    for r in route.execute(p, LabelsRequest(), quiet=True)["labels"]:
        if (since := r.get("branch_deleted_at")) and (cat := cfg.catalogs.get(r["catalog"])):
            until = day(since + cat.deleted_grace_days * 86400)
            gone.append(
                f"{r['catalog']}:{r['label']} (branch gone since {day(since)}, removed after {until})"
            )
    if not gone:
        return None
    hint = "recreate the branch to keep its label (nothing is re-indexed), or 'monodex labels rm' it now"
    return "warn", f"labels whose branch was deleted: {'; '.join(gone)}", hint


def _catalog(cat: config.Catalog) -> tuple[str, str, str]:
    from monodex.hooks.install import outdated, reach
    from monodex.indexer.git import gitobjects

    gitobjects.open_repo(cat.path)
    hooks = reach(cat.path)
    if hooks.problem:
        return hooks.level, f"{cat.path}: hooks ({hooks.how}): {hooks.problem}", hooks.hint
    how = hooks.how
    if not how:
        return "warn", f"{cat.path}: no monodex hooks", f"monodex hooks install --repo {cat.path}"
    if stale := outdated(cat.path):
        return (
            "warn",
            f"{cat.path}: hooks from an earlier monodex ({', '.join(stale)}) can miss a commit "
            "when the branch is switched right after it",
            f"monodex hooks install --repo {cat.path}",
        )
    return "ok", f"{cat.path}: hooks installed ({how})", ""


def _history(p: paths.Paths, cat: config.Catalog) -> tuple[str, str, str]:
    from monodex.indexer.history import catchup, cochanges

    counted = cochanges.summary(p.state_dir, cat.name)
    if counted is None:
        return (
            "warn",
            f"{cat.name}: no commit history counted (or unreadable, or counted by an older monodex): "
            "search ranks without which files changed together and past commits' words",
            f"any crawl or refresh of {cat.name} counts it: {crawl_command(cat)}",
        )
    commits, size = counted
    if catchup.shallow_boundary(cat.path):
        return (
            "warn",
            f"{cat.name}: {commits:,} commits counted, but the clone is shallow: search ranks without "
            "the older history's words and co-changes",
            f"git -C {cat.path} fetch --unshallow (the next refresh counts the rest)",
        )
    return "ok", f"{cat.name}: {commits:,} commits counted ({size / 1e6:.1f} MB)", ""


def _runner(p: paths.Paths) -> tuple[str, str, str]:
    from monodex.runner.runnerpid import running_pid
    from monodex.scheduler import service
    from monodex.scheduler.state import JobState

    pid = running_pid(p)
    if pid is None:
        start = "monodex runner install-service"
        if service.installed():  # installed, not running: starting it is the step left
            start = "systemctl --user daemon-reload && systemctl --user enable --now monodex-runner.service"
        return "warn", "not running: labels are not refreshed by themselves", start
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


def _service(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str]:
    """The installed systemd unit against the one this config needs (folders, repositories)."""
    from monodex.scheduler import service

    unit = service.installed()
    missing = service.drift(p, [c.path for c in cfg.catalogs.values()])
    if not missing:
        return "ok", f"{unit} matches the config", ""
    return (
        "warn",
        f"{unit} is out of date; it lacks: {'; '.join(missing)[:400]}",
        "monodex runner install-service && systemctl --user daemon-reload && "
        "systemctl --user restart monodex-runner.service",
    )


def _folders(p: paths.Paths, cfg: config.Config) -> tuple[str, str, str]:
    """The index holds the code's text: its folders should be the user's alone (monodex creates
    them 0700; older versions made them 0755, and doctor does not chmod what it did not create)."""
    folders = [p.config_dir, p.data_dir, p.state_dir, p.runtime_dir]
    folders += [cfg.qdrant.path] if cfg.qdrant.path else []
    shared = [f for f in folders if f.is_dir() and f.stat().st_mode & 0o077]
    if shared:
        modes = ", ".join(f"{f} ({f.stat().st_mode & 0o777:o})" for f in shared)
        return "warn", f"others may read {modes}", "chmod 700 " + " ".join(str(f) for f in shared)
    return "ok", "private to their owner", ""


def _spool(p: paths.Paths) -> tuple[str, str, str]:
    from monodex.front.status import quarantine_hint

    queue = spool.default(p.state_dir)
    failed = queue.failed()
    if failed:
        last = failed[-1]
        return (
            "warn",
            f"{len(failed)} refreshes failing; {last.key}: {last.last_error[:200]}",
            "see monodex status",
        )
    unreadable = queue.unreadable()
    if unreadable:
        reasons = "; ".join(f"{q.name}: {q.reason[:200]}" for q in unreadable[:3])
        return (
            "warn",
            f"{len(unreadable)} queued files are no request: {reasons}",
            f"the runner's next drain moves them to {queue.quarantine}; or delete them from {queue.new}",
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


def _state_folders(p: paths.Paths) -> tuple[str, str, str]:
    """The runner writes its state, log and spool here: unwritable, it would stall in silence."""
    s = spool.default(p.state_dir)
    problems = writable.problems([p.state_dir, p.log_dir, s.root, s.new, s.claimed, s.quarantine, s.tmp])
    if problems:
        return "error", "; ".join(x["problem"] for x in problems), problems[0]["hint"]
    return "ok", f"{p.state_dir} writable", ""


def _config_file(p: paths.Paths) -> Check:
    if p.config_file.exists():
        return {"check": "config", "level": "ok", "detail": str(p.config_file), "hint": ""}
    return {
        "check": "config",
        "level": "warn",
        "detail": f"{p.config_file} does not exist (nothing registered; the defaults apply)",
        "hint": "register a repository: monodex catalog add NAME /path/to/repo (it writes the file)",
    }


def collect(p: paths.Paths) -> list[Check]:
    try:
        cfg = config.load(p)
    except MonodexError as exc:  # nothing else can be checked without it
        return [{"check": "config", "level": "error", "detail": exc.problem, "hint": exc.hint}]
    checks = [_config_file(p)]
    checks.append(_check("model", lambda: _model(cfg)))
    checks.append(_check("index", lambda: _index(p, cfg)))
    with contextlib.suppress(MonodexError):  # the index check above reports an unreadable index
        if (leftover := _leftovers(p, cfg)) is not None:
            checks.append(_check("leftover labels", lambda: leftover))
        if (gone := _gone_branches(p, cfg)) is not None:
            checks.append(_check("deleted branches", lambda: gone))
    with contextlib.suppress(MonodexError):  # the model check above reports a missing model
        if (old := _old_models(p, cfg)) is not None:
            checks.append(_check("old models", lambda: old))
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
        checks.append(_check(f"history {cat.name}", functools.partial(_history, p, cat)))
    checks.append(_check("runner", lambda: _runner(p)))
    from monodex.scheduler import service

    if service.installed():
        checks.append(_check("service", lambda: _service(p, cfg)))
    checks.append(_check("state folders", lambda: _state_folders(p)))
    checks.append(_check("spool", lambda: _spool(p)))
    checks.append(_check("folders", lambda: _folders(p, cfg)))
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
