"""Run an index operation through the runner whenever one is alive (it owns the shard and keeps
the model warm; rpc.connect waits for it rather than bypass it), or in this process when none is."""

from __future__ import annotations

import sys
from typing import Any

from monodex import config, rpc
from monodex.paths import Paths


def execute(
    paths: Paths, op: str, args: dict[str, Any], *, progress: rpc.Progress | None = None, quiet: bool = False
) -> dict[str, Any]:
    def waiting(text: str) -> None:
        if not quiet:
            sys.stderr.write(f"monodex: {text}\n")

    answer = rpc.call(paths, op, args, on_progress=progress, on_waiting=waiting)
    if answer is not None:
        return answer
    from monodex.indexer import ops
    from monodex.indexer.session import Session

    with Session(config.load(paths), paths) as s:
        return ops.run(s, op, args, progress)
