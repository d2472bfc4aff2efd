"""structlog, configured once: stderr, human lines on a TTY, JSON lines otherwise."""

from __future__ import annotations

import json
import logging
import logging.handlers
import sys
from pathlib import Path
from typing import Any

import structlog


def configure(*, verbose: bool = False, json_lines: bool | None = None, log_file: Path | None = None) -> None:
    """stderr always; with log_file also a rotating file of JSON lines (the runner's)."""
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(log_file, maxBytes=5 << 20, backupCount=3)
        handler.setFormatter(logging.Formatter("%(message)s"))
        file_logger = logging.getLogger("monodex.file")
        file_logger.handlers[:] = [handler]
        file_logger.setLevel(logging.INFO)
        file_logger.propagate = False
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    renderer: Any = (
        structlog.processors.JSONRenderer() if json_lines else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *([_tee(logging.getLogger("monodex.file"))] if log_file is not None else []),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if verbose else logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=_Stderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )


def get(name: str = "monodex") -> Any:
    return structlog.get_logger(name)


def _tee(file_logger: logging.Logger) -> Any:
    def processor(_logger: Any, _name: str, event: dict[str, Any]) -> dict[str, Any]:
        file_logger.info(json.dumps(event, default=str))
        return event

    return processor


class _Stderr:
    """Whatever sys.stderr is at write time (it is swapped by test capture and daemonizing)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()
