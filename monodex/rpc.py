"""Talking to a running runner over its unix socket (stdlib only: the CLI stays light).

One request per connection: the client writes one JSON line {"v", "op", "args"}; the runner
answers with any number of {"progress": [files, total, chunks]} or {"waiting": text} lines and
then one {"ok": true, "result": ...} or {"ok": false, "error": {"problem", "hint", "exit"}}.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from typing import Any

from monodex.errors import MonodexError, UsageError
from monodex.paths import Paths

VERSION = 1
MAX_LINE = 64 * 1024 * 1024  # a view of a large file is the biggest answer

Progress = Callable[[int, int, int], None]


def connect(paths: Paths, timeout: float = 2.0) -> socket.socket | None:
    """A connection to the runner, or None when none is listening (no socket or a stale one)."""
    path = paths.socket_path
    if not path.exists():
        return None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(str(path))
    except OSError:  # refused: a runner died without removing its socket
        sock.close()
        return None
    return sock


def call(
    paths: Paths,
    op: str,
    args: dict[str, Any],
    *,
    on_progress: Progress | None = None,
    on_waiting: Callable[[str], None] | None = None,
) -> dict[str, Any] | None:
    """The runner's answer, or None when no runner is listening (the caller works locally).
    An error answer is raised as the same MonodexError / UsageError the local path raises."""
    sock = connect(paths)
    if sock is None:
        return None
    with sock:
        sock.settimeout(None)  # a handed-off crawl runs as long as it needs
        sock.sendall(json.dumps({"v": VERSION, "op": op, "args": args}).encode() + b"\n")
        with sock.makefile("rb") as stream:
            for raw in stream:
                msg = json.loads(raw)
                if "progress" in msg:
                    if on_progress is not None:
                        on_progress(*msg["progress"])
                elif "waiting" in msg:
                    if on_waiting is not None:
                        on_waiting(str(msg["waiting"]))
                elif msg.get("ok"):
                    result: dict[str, Any] = msg["result"]
                    return result
                else:
                    err = msg.get("error") or {}
                    kind = UsageError if err.get("exit") == 2 else MonodexError
                    raise kind(str(err.get("problem", "the runner failed")), str(err.get("hint", "")))
    raise MonodexError(
        f"the runner closed the connection before answering {op!r}",
        "see the runner log ('monodex status' names it) and retry",
    )
