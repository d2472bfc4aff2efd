"""structlog, configured once: stderr, human lines on a TTY, JSON lines otherwise."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog


def configure(*, verbose: bool = False, json_lines: bool | None = None) -> None:
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
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG if verbose else logging.INFO),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


def get(name: str = "monodex") -> Any:
    return structlog.get_logger(name)
