"""The one socket-or-local decision: a request runs in the runner whenever one is alive (it owns the
shard and keeps the model warm; rpc.connect waits for it rather than bypass it), else here.

The CLI runs each request with a fresh Local; the MCP server keeps one Local for its life, so its
model stays warm between tool calls while the shard is opened only for each call (a runner may
start at any time and needs it)."""

from __future__ import annotations

import sys
import threading
from typing import TYPE_CHECKING, Any, TypeVar, cast

from monodex.disk.paths import Paths
from monodex.observe.progress import OnProgress
from monodex.requests import Asks, Request, to_wire
from monodex.runner import rpc
from monodex.settings import config

A = TypeVar("A")

# Set by the `monodex` CLI (main.cli), which exits when its command returns: a request it runs
# here leaves the shard it opened to that exit rather than closing it (store/edge.py leaving()).
_ends_with_command = False


def ends_with_command() -> None:
    global _ends_with_command
    _ends_with_command = True


if TYPE_CHECKING:
    from monodex.indexer.engine import Engine


class Local:
    """Runs requests in this process; `keep_model` keeps the embedding model loaded between them."""

    def __init__(self, *, keep_model: bool = False) -> None:
        self.keep_model = keep_model
        self._lock = threading.Lock()
        self._engine: Engine | None = None
        self._embedder: Any = None

    def run(self, paths: Paths, request: Asks[A], progress: OnProgress | None = None) -> A:
        # Imported here: the indexer is heavy, and a CLI talking to the runner never needs it.
        from monodex.indexer.ops import answers
        from monodex.indexer.session import Session
        from monodex.indexer.session import engine as open_engine

        with self._lock:  # one local shard open at a time: it is an exclusive lock
            cfg = config.load(paths)
            warm = None
            if self.keep_model:
                if self._engine is None or self._embedder != cfg.embedder:
                    self._engine, self._embedder = open_engine(cfg), cfg.embedder
                warm = self._engine
            with Session(cfg, paths, engine=warm) as s:
                # answers.run answers each kind of request with its own kind of answer (its match)
                return cast(A, answers.run(s, cast(Request, request), progress))


def execute(
    paths: Paths,
    request: Asks[A],
    *,
    progress: OnProgress | None = None,
    quiet: bool = False,
    local: Local | None = None,
) -> A:
    """The answer to `request`, from the runner when one is alive, else from `local` (a fresh one
    by default). `quiet`: no "waiting for the runner" lines on stderr (--json, MCP)."""

    def waiting(text: str) -> None:
        if not quiet:
            sys.stderr.write(f"monodex: {text}\n")

    typed = cast(Request, request)
    if "monodex.indexer.store.edge" in sys.modules:  # a runner starting now must get the shard
        sys.modules["monodex.indexer.store.edge"].release_left()
    answer = rpc.call(paths, typed.OP, to_wire(typed), on_progress=progress, on_waiting=waiting)
    if answer is not None:  # the runner's JSON of the same typed answer (schema/wire.py)
        return cast(A, answer)
    if local is None and _ends_with_command:
        from monodex.indexer.store.edge import leaving

        with leaving():
            return Local().run(paths, request, progress)
    return (local or Local()).run(paths, request, progress)
