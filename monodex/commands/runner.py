"""Run the background runner, or install it as a systemd user service."""

from __future__ import annotations

import argparse
from dataclasses import replace

from monodex.disk import paths
from monodex.errors import MonodexError, UsageError
from monodex.observe import logs, output
from monodex.schema.setup import ServiceRemoved, ServiceWritten
from monodex.settings import config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("run", help="run in the foreground (the default; what the service runs)")
    for name, text in (
        ("install-service", "write ~/.config/systemd/user/monodex-runner.service"),
        ("uninstall-service", "remove the unit file"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--drain-seconds", type=float, help="spool drain interval (default: schedules.drain_seconds or 2)"
    )
    parser.add_argument(
        "--gc-cron", help='GC schedule, cron syntax (default: schedules.gc in config.json or "0 3 * * *")'
    )
    parser.add_argument(
        "--verify-cron", help='verification schedule (default: schedules.verify or "30 3 * * *")'
    )


def _render_removed(r: ServiceRemoved) -> str:
    return f"removed {r['removed']}" if r["removed"] else "no unit installed"


def run(args: argparse.Namespace) -> int:
    from monodex.scheduler import service

    p = paths.resolve()
    if args.action == "install-service":
        unit = service.install(p, [c.path for c in config.load(p).catalogs.values()])
        written: ServiceWritten = {
            "unit": str(unit),
            "next": "systemctl --user daemon-reload && systemctl --user enable --now monodex-runner.service",
        }
        output.emit(written, as_json=args.json, render=lambda r: f"wrote {r['unit']}\nthen run: {r['next']}")
        return 0
    if args.action == "uninstall-service":
        removed = service.uninstall()
        gone: ServiceRemoved = {"removed": str(removed) if removed else None}
        output.emit(gone, as_json=args.json, render=_render_removed)
        return 0
    from monodex.scheduler.runner import Runner

    logs.configure(json_lines=None, log_file=p.log_dir / "runner.log")
    base = config.load(p).schedules  # fails fast on a broken config, before the loop starts
    if args.drain_seconds is not None and args.drain_seconds <= 0:
        raise UsageError(f"--drain-seconds must be positive, got {args.drain_seconds}", "pass e.g. 2")
    schedules = replace(
        base,
        drain_seconds=args.drain_seconds if args.drain_seconds is not None else base.drain_seconds,
        gc=args.gc_cron or base.gc,
        verify=args.verify_cron or base.verify,
    )
    try:
        Runner(p, schedules).start()
    # Also in runner.log (under systemd nobody reads the terminal), but not again on stderr: main
    # says it there once, the error and its hint (or the crash log's path).
    except MonodexError as exc:
        logs.get("monodex.runner").error("runner.failed", error=exc.problem, hint=exc.hint, file_only=True)
        raise
    except Exception:
        logs.get("monodex.runner").exception("runner.crashed", file_only=True)
        raise
    return 0
