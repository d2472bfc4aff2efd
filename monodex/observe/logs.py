"""structlog, configured once: stderr, human lines on a TTY, JSON lines otherwise. Libraries
that log through the standard library (APScheduler) are routed into the same stream.

structlog is imported at the first event, not at start: most commands log nothing, and its
import (asyncio with it) was ~35 ms of every command's start."""

from __future__ import annotations

import json
import logging
import sys
import threading
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from monodex.observe import logrotate

# What a structlog processor takes and returns (structlog.typing.EventDict, named here: importing
# structlog is deferred until logging is configured).
EventDict = MutableMapping[str, Any]

_pending: dict[str, Any] | None = None  # configure()'s settings until structlog is imported
_level: int | None = None  # configure()'s level: an event below it needs no structlog at all
# structlog's method names by level ("exception" logs at error)
_LEVELS = {"debug": 10, "info": 20, "warning": 30, "warn": 30, "error": 40, "exception": 40, "critical": 50}
_ready = False  # structlog imported whole and _pending applied
_applying = threading.RLock()  # reentrant: a signal handler may log in the middle of the loading
_here = threading.local()  # .loading: this thread is inside the import or the applying
_deferred: list[tuple[str, str, tuple[Any, ...], dict[str, Any]]] = []


def configure(
    *, verbose: bool = False, json_lines: bool | None = None, log_file: Path | None = None, cli: bool = False
) -> None:
    """stderr always; with log_file also a rotating file of JSON lines (the runner's). A `cli`
    command on a terminal shows warnings and errors only (its INFO events, `label.removed`, repeat
    what its result says and break its progress line); -v shows all."""
    if log_file is not None:
        from logging.handlers import RotatingFileHandler  # the runner's only: ~5 ms of imports

        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(log_file, maxBytes=logrotate.MAX_BYTES, backupCount=logrotate.BACKUPS)
        handler.setFormatter(logging.Formatter("%(message)s"))
        file_logger = logging.getLogger("monodex.file")
        file_logger.handlers[:] = [handler]
        file_logger.setLevel(logging.INFO)
        file_logger.propagate = False
    tty = sys.stderr.isatty()
    if json_lines is None:
        json_lines = not tty
    level = logging.DEBUG if verbose else logging.WARNING if cli and tty else logging.INFO
    global _pending, _level
    _pending = {"json_lines": json_lines, "level": level, "tee": log_file is not None}
    _level = level
    if "structlog" in sys.modules:  # already loaded (a test, the runner): take effect now
        _structlog()
    _route_stdlib("apscheduler")


# APScheduler warns on every drain interval a long refresh holds the drain job (24-38 lines per
# refresh measured, issue 15): expected while busy, so it is debug, not news.
_EXPECTED = ("maximum number of running instances reached",)


class _ToStructlog(logging.Handler):
    """A stdlib record as a structlog event: one format, one file for everything the runner says."""

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        level = logging.DEBUG if any(e in message for e in _EXPECTED) else record.levelno
        event = f"{record.name.split('.')[0]}.log"
        extra = {"exc_info": record.exc_info} if record.exc_info else {}
        get(record.name).log(level, event, message=message, logger=record.name, **extra)


def _route_stdlib(name: str) -> None:
    lib = logging.getLogger(name)
    lib.handlers[:] = [_ToStructlog()]
    lib.setLevel(logging.WARNING)  # APScheduler logs every job run at INFO: every 2 s
    lib.propagate = False


def get(name: str = "monodex") -> Any:
    return _Logger(name)


class _Logger:
    """A structlog logger that imports structlog when it is first used."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if getattr(_here, "loading", False):
            # A signal handler run inside the loading (SIGTERM on the runner's first event) would
            # get a half-imported structlog: its event waits for the loading instead.
            return lambda *args, **kwargs: _deferred.append((self._name, attr, args, kwargs))
        if (
            _level is not None
            and _LEVELS.get(attr, logging.CRITICAL) < _level
            and "structlog" not in sys.modules
        ):
            # filtered out anyway: importing structlog for it was 33 ms of a command. Once it is
            # loaded (the runner, a test capturing events), it decides as configured.
            return _dropped
        return getattr(_structlog().get_logger(self._name), attr)


def _dropped(*_args: Any, **_kwargs: Any) -> None:
    return None


def _structlog() -> Any:
    """structlog, with configure()'s settings applied once: another thread's first event waits
    for them (structlog's defaults would print it to stdout)."""
    global _pending, _ready
    if _ready and _pending is None:
        return sys.modules["structlog"]
    with _applying:
        _here.loading = True
        try:
            import structlog

            if _pending is not None:
                _apply(structlog, **_pending)
                _pending = None
            _ready = True
        finally:
            _here.loading = False
        held, _deferred[:] = list(_deferred), []
    for name, attr, args, kwargs in held:
        getattr(structlog.get_logger(name), attr)(*args, **kwargs)
    return structlog


def _apply(structlog: Any, *, json_lines: bool, level: int, tee: bool) -> None:
    renderer: Any = (
        structlog.processors.JSONRenderer() if json_lines else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *([structlog.processors.format_exc_info] if json_lines else []),
            *([_tee(logging.getLogger("monodex.file"))] if tee else []),
            _file_only,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=_Stderr()),
        cache_logger_on_first_use=False,
    )


def _tee(file_logger: logging.Logger) -> Any:
    def processor(_logger: Any, _name: str, event: EventDict) -> EventDict:
        if event.get("level") == "debug":
            return event  # the file keeps INFO and up, also with --verbose on stderr
        # The traceback as text in the file; stderr's renderer formats exc_info its own way.
        import structlog

        line = structlog.processors.format_exc_info(_logger, _name, dict(event))
        line.pop("file_only", None)
        file_logger.info(json.dumps(line, default=str))
        return event

    return processor


def _file_only(_logger: Any, _name: str, event: EventDict) -> EventDict:
    """`log.error(..., file_only=True)`: an event stderr already shows another way (the CLI's
    own error line, issue 35: the runner's failure came twice); the log file, if any, keeps it."""
    if event.pop("file_only", False):
        import structlog

        raise structlog.DropEvent
    return event


class _Stderr:
    """Whatever sys.stderr is at write time (it is swapped by test capture and daemonizing)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
