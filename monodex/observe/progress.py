"""Progress for long work: one rewritten line on a TTY (files, chunks, rate, ETA), else nothing."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import TextIO

# What long work reports as it goes: done, total, chunks, phase ("index": files of phase one;
# "dense": chunks of phase two; "eval": questions; "compact": one blocking call). The crawl, the
# evaluation and the runner's socket call one; a ProgressLine is one.
OnProgress = Callable[[int, int, int, str], None]


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def percent(share: float, *, left: int = 0) -> str:
    """A share as a whole percent, rounded down, and never 100% with work left (a share is
    rounded to 4 places: 1 chunk of 20,000 to go reads 1.0). The one rule for every figure an
    answer shows (issue 35: one answer said "99% done" and "cover 100%")."""
    whole = math.floor(share * 100)
    return f"{min(whole, 99) if left else whole}%"


def line(files: int, total: int, chunks: int, elapsed: float, phase: str = "index") -> str:
    rate = chunks / elapsed if elapsed > 0 else 0.0
    eta = (total - files) * elapsed / files if files else None
    eta_text = duration(eta) if eta is not None else "?"
    if phase == "eval":  # monodex eval: questions, each searched in every mode
        per_second = files / elapsed if elapsed > 0 else 0.0
        return f"questions {files}/{total} · {per_second:.1f} questions/s · ETA {eta_text}"
    if phase == "dense":  # phase two: the label is searchable already, vectors fill in
        return f"searchable · dense vectors {files}/{total} · {rate:.1f} chunks/s · ETA {eta_text}"
    return f"files {files}/{total} · chunks {chunks} · {rate:.1f} chunks/s · ETA {eta_text}"


class ProgressLine:
    def __init__(self, *, enabled: bool | None = None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.start = time.monotonic()
        self._last = 0.0
        self._phase = "index"

    def __call__(self, files: int, total: int, chunks: int, phase: str = "index") -> None:
        now = time.monotonic()
        if phase != self._phase:  # a new phase has its own rate and ETA
            self._phase, self.start = phase, now
        if not self.enabled or (now - self._last < 0.2 and files < total):
            return
        self._last = now
        self.stream.write("\r\x1b[2K" + line(files, total, chunks, now - self.start, phase))
        self.stream.flush()

    def done(self) -> None:
        if self.enabled:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()
