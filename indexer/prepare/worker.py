"""A worker process of phase one: `python -m monodex.indexer.prepare.worker`.

It reads batches of FileTasks from stdin and writes back each batch's FileJobs (files.prepare)
until stdin closes, which is also how it ends when the crawl dies. Logs go to stderr; stdout
carries frames only, so anything else written to it is sent to stderr."""

from __future__ import annotations

import os
import signal
import sys
import traceback

from monodex.indexer.prepare import frames
from monodex.indexer.prepare.files import prepare

from monodex.observe import logs


def serve() -> int:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the crawl, which stops us
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a stray print must not corrupt a frame
    inp = sys.stdin.buffer
    logs.configure(cli=True)
    budget = int(frames.read(inp)["budget"])
    while True:
        try:
            batch = frames.read(inp)
        except EOFError:
            return 0
        try:
            reply: tuple[str, object] = ("ok", [prepare(task, budget) for task in batch])
        except Exception as exc:  # noqa: BLE001 - sent to the crawl, which raises it
            reply = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        frames.write(out, reply)


if __name__ == "__main__":
    sys.exit(serve())
