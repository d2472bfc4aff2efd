"""The CLI: the parser tree and the one error boundary."""

from __future__ import annotations

import argparse
import difflib
import errno
import json
import logging
import os
import sys
import threading
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NoReturn

from monodex import __version__
from monodex.commands import REGISTRY
from monodex.commands.common import ends_with_command, flag
from monodex.disk import paths
from monodex.errors import MonodexError, UsageError
from monodex.observe import logs
from monodex.requests import FieldError
from monodex.settings import config


class _ArgumentError(UsageError):
    """argparse's complaint, raised so the one boundary prints it (as JSON with --json)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str, *, usage: bool = True) -> None:
        super().__init__(message, f"run '{parser.prog} --help'" + ("" if usage else " for its options"))
        self.usage = parser.format_usage() if usage else ""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ArgumentError(self, message)


def _verbose(parser: argparse.ArgumentParser) -> None:
    # also after the command (`crawl -v`); SUPPRESS keeps a `-v` given before it
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help="debug logging on stderr"
    )
    for action in parser._actions:  # and after a sub-command's action (`catalog add -v`)
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _verbose(child)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="monodex", description="Semantic code search for git monorepos.")
    parser.add_argument("--version", action="version", version=f"monodex {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module in REGISTRY.items():
        doc = " ".join((module.__doc__ or "").strip().split("\n\n")[0].split())  # the first paragraph
        cmd = sub.add_parser(name, help=doc, description=doc)
        module.add_arguments(cmd)
        _verbose(cmd)
        cmd.set_defaults(run=module.run)
    return parser


def _crash_log(exc: BaseException) -> str:
    try:
        log_dir = paths.resolve().log_dir
        log_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        path = log_dir / f"crash-{stamp}.log"
        body = "".join(traceback.format_exception(exc))
        path.write_text(f"monodex {__version__}\npython {sys.version}\nargv {sys.argv}\n\n{body}")
        return str(path)
    except OSError:
        return "(could not write a crash log)"


def _out_of_space(exc: OSError) -> MonodexError | None:
    """ENOSPC from a write that did not say where (the ones that know raise DiskFull themselves)."""
    if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
        return None
    return MonodexError(
        f"the disk is full: {exc.strerror}" + (f" ({exc.filename})" if exc.filename else ""),
        "free space on the disk ('df -h' shows which one is full), then re-run the command",
    )


def _chosen(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command's own parser: the one whose options a mistyped flag was meant for."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and getattr(args, action.dest, None):
            return _chosen(action.choices[getattr(args, action.dest)], args)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        own = _chosen(parser, args)
        typo = next((e.split("=")[0] for e in extra if e.startswith("-") and e != "-"), "")
        if typo:  # a mistyped flag: one short line naming it, never a search for what followed it
            known = [o for a in own._actions for o in a.option_strings if a.help != argparse.SUPPRESS]
            near = difflib.get_close_matches(typo, known, n=1)
            guess = f" (did you mean {near[0]}?)" if near else ""
            raise _ArgumentError(own, f"unknown option {typo}{guess}", usage=False)
        own.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _report(exc: MonodexError, *, as_json: bool) -> int:
    """An error on stderr: two lines for a person, or with --json one JSON object {"error", "hint"}."""
    shown = exc.spelled(flag) if isinstance(exc, FieldError) else exc
    if as_json:
        sys.stderr.write(json.dumps({"error": shown.problem, "hint": shown.hint}, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(getattr(exc, "usage", "") + shown.render() + "\n")
    return exc.exit_code


def main(argv: Sequence[str] | None = None) -> int:
    as_json = "--json" in (sys.argv[1:] if argv is None else argv)
    try:
        args = _parse(argv)
    except _ArgumentError as exc:
        return _report(exc, as_json=as_json)
    umask = paths.private()
    logs.configure(verbose=args.verbose, cli=True)
    try:
        if args.command != "doctor":  # doctor reports a broken config among its checks
            config.load(paths.resolve())  # one message, exit 2, whoever would answer the command
        code: int = args.run(args)
        return code
    except MonodexError as exc:
        return _report(exc, as_json=as_json)
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - the boundary for everything unexpected
        full = _out_of_space(exc) if isinstance(exc, OSError) else None
        if full is not None:  # no crash log: there is no room for one
            return _report(full, as_json=as_json)
        crash = MonodexError(f"unexpected {type(exc).__name__}: {exc}", f"details are in {_crash_log(exc)}")
        return _report(crash, as_json=as_json)
    finally:
        os.umask(umask)  # tests call main() in-process: leave their umask as it was


def cli() -> NoReturn:
    """The `monodex` command: main(), then exit without tearing the interpreter down. Finalizing
    the modules a command loaded (numpy, the Edge shard's bindings, dulwich) took ~30 ms of every
    command's ~0.6 s; the shard is flushed and stdout too by then, and the shard is left to the
    exit rather than closed (front/route.py ends_with_command). With a thread still running Python's own
    exit waits for it as before."""
    ends_with_command()
    code = main()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away, or a test closed the stream
        pass
    if threading.active_count() > 1:
        sys.exit(code)
    logging.shutdown()
    os._exit(code)
