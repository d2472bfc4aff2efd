"""Talking to a running runner over its unix socket (stdlib only: the CLI stays light).

One request per connection: the client writes one JSON line {"v", "op", "args"}; the runner
answers with any number of {"progress": [files, total, chunks]} or {"waiting": text} lines and
then one {"ok": true, "result": ...} or {"ok": false, "error": {"problem", "hint", "exit"}} (plus
"field" when one request field was bad: the client names it as its surface does).
A request line is at most MAX_REQUEST bytes. `connect` is the one socket-or-local decision of the
CLI and MCP: local only when no runner is alive.
"""

from __future__ import annotations

import json
import random
import socket
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

from monodex.disk.paths import Paths
from monodex.errors import MonodexError, UsageError
from monodex.observe.progress import OnProgress
from monodex.requests import FieldError
from monodex.runner import runnerpid

# 2: the arguments are a monodex/requests/ request (view by file_id/path + chunks).
VERSION = 2
# A request is a few hundred bytes (a search text is capped in requests/fields.py), so 1 MiB is
# generous; before the bound a 10 MB query took the runner 30 s and 1.5 GB (issue 12).
MAX_REQUEST = 1024 * 1024
# How long a client keeps knocking while a live runner does not accept (a burst filled the
# backlog, it is still loading the model, it is shutting down) before it reports the runner stuck.
CONNECT_PATIENCE = 10.0


class Failure(TypedDict):
    problem: str
    hint: str
    exit: int
    field: NotRequired[dict[str, Any]]  # requests.FieldError.wire(): the client names it its way


class Reply(TypedDict):
    """The runner's last line for a request: its answer (schema/wire.py), or why it has none."""

    ok: bool
    result: NotRequired[Mapping[str, object]]
    error: NotRequired[Failure]


def attempt(path: Path, timeout: float = 2.0) -> socket.socket | None:
    """One connect to whatever listens on path, or None."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:  # missing, refused (nobody listens) or EAGAIN (the backlog is full)
        sock.close()
        return None
    return sock


def connect(paths: Paths, *, patience: float | None = None) -> socket.socket | None:
    """A connection to the runner, or None when no runner is alive (the caller opens the index
    itself; a socket file left by a killed runner is ignored). While a runner lives it owns the
    shard, so it is never bypassed: a failed connect is retried with backoff, and after
    `patience` seconds it is an error."""
    deadline = time.monotonic() + (CONNECT_PATIENCE if patience is None else patience)
    delay = 0.01
    while True:
        sock = attempt(paths.socket_path)
        if sock is not None:
            return sock
        pid = runnerpid.running_pid(paths)
        if pid is None:
            return None
        left = deadline - time.monotonic()
        if left <= 0:
            raise MonodexError(
                f"the runner (pid {pid}) does not answer on {paths.socket_path}",
                "it may still be starting or be stuck: retry in a moment; 'monodex status' and its "
                f"log ({paths.log_dir}) tell more; if it hangs, stop it (kill {pid}) and the CLI works alone",
            )
        time.sleep(min(left, delay * random.uniform(0.5, 1.5)))  # jitter: a burst spreads out
        delay = min(delay * 2, 0.5)


def call(
    paths: Paths,
    op: str,
    args: dict[str, Any],
    *,
    on_progress: OnProgress | None = None,
    on_waiting: Callable[[str], None] | None = None,
) -> dict[str, Any] | None:
    """The runner's answer, or None when no runner is alive (the caller works locally).
    An error answer is raised as the same MonodexError / UsageError the local path raises."""
    request = json.dumps({"v": VERSION, "op": op, "args": args}).encode() + b"\n"
    if len(request) > MAX_REQUEST:  # the runner would refuse it after reading 1 MiB of it
        raise UsageError(
            f"request too large: {len(request):,} bytes to send, max {MAX_REQUEST:,} bytes",
            "shorten the arguments (a search text is at most a few KB)",
        )
    sock = connect(paths)
    if sock is None:
        return None
    with sock:
        sock.settimeout(None)  # a handed-off crawl runs as long as it needs
        sock.sendall(request)
        with sock.makefile("rb") as stream:
            for raw in stream:
                msg = json.loads(raw)
                if "progress" in msg:
                    if on_progress is not None:
                        done, total, chunks, *phase = msg["progress"]
                        on_progress(done, total, chunks, str(phase[0]) if phase else "index")
                elif "waiting" in msg:
                    if on_waiting is not None:
                        on_waiting(str(msg["waiting"]))
                elif msg.get("ok"):
                    result: dict[str, Any] = msg["result"]
                    return result
                else:
                    err = msg.get("error") or {}
                    if isinstance(err.get("field"), dict):
                        raise FieldError.from_wire(err["field"])
                    kind = UsageError if err.get("exit") == 2 else MonodexError
                    raise kind(str(err.get("problem", "the runner failed")), str(err.get("hint", "")))
    raise MonodexError(
        f"the runner closed the connection before answering {op!r}",
        "see the runner log ('monodex status' names it) and retry",
    )
