"""The CLI: the parser tree and the one error boundary."""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC, datetime

from monodex import __version__, logs, paths
from monodex.commands import REGISTRY
from monodex.commands.common import flag
from monodex.errors import MonodexError
from monodex.requests import FieldError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        sys.stderr.write(f"error: {message}\nhint: run '{self.prog} --help'\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="monodex", description="Semantic code search for git monorepos.")
    parser.add_argument("--version", action="version", version=f"monodex {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, module in REGISTRY.items():
        doc = (module.__doc__ or "").strip().splitlines()[0]
        cmd = sub.add_parser(name, help=doc, description=doc)
        module.add_arguments(cmd)
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


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    umask = paths.private()
    logs.configure(verbose=args.verbose)
    try:
        code: int = args.run(args)
        return code
    except MonodexError as exc:
        shown = exc.spelled(flag) if isinstance(exc, FieldError) else exc
        sys.stderr.write(shown.render() + "\n")
        return exc.exit_code
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        return 1
    except Exception as exc:  # noqa: BLE001 - the boundary for everything unexpected
        full = _out_of_space(exc) if isinstance(exc, OSError) else None
        if full is not None:  # no crash log: there is no room for one
            sys.stderr.write(full.render() + "\n")
            return 1
        sys.stderr.write(f"error: unexpected {type(exc).__name__}: {exc}\n")
        sys.stderr.write(f"hint: details are in {_crash_log(exc)}\n")
        return 1
    finally:
        os.umask(umask)  # tests call main() in-process: leave their umask as it was
