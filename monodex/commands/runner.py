"""Run the background runner, or install it as a systemd user service."""

from __future__ import annotations

import argparse

from monodex import config, logs, output, paths


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.add_parser("run", help="run in the foreground (the default; what the service runs)")
    for name, text in (
        ("install-service", "write ~/.config/systemd/user/monodex-runner.service"),
        ("uninstall-service", "remove the unit file"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--drain-seconds", type=float, default=2.0, help="spool drain interval (default 2)")
    parser.add_argument("--gc-cron", default="0 3 * * *", help="GC schedule, cron syntax (default 3:00)")
    parser.add_argument("--verify-cron", default="30 3 * * *", help="verification schedule (default 3:30)")


def run(args: argparse.Namespace) -> int:
    from monodex.scheduler import service

    p = paths.resolve()
    if args.action == "install-service":
        unit = service.install(p, [c.path for c in config.load(p).catalogs.values()])
        output.emit(
            {
                "unit": str(unit),
                "next": "systemctl --user daemon-reload && "
                "systemctl --user enable --now monodex-runner.service",
            },
            as_json=args.json,
            render=lambda r: f"wrote {r['unit']}\nthen run: {r['next']}",
        )
        return 0
    if args.action == "uninstall-service":
        removed = service.uninstall()
        output.emit(
            {"removed": str(removed) if removed else None},
            as_json=args.json,
            render=lambda r: f"removed {r['removed']}" if r["removed"] else "no unit installed",
        )
        return 0
    from monodex.scheduler.runner import Runner, Schedules

    logs.configure(json_lines=None, log_file=p.log_dir / "runner.log")
    config.load(p)  # fail fast on a broken config, before the loop starts
    Runner(p, Schedules(args.drain_seconds, args.gc_cron, args.verify_cron)).start()
    return 0
