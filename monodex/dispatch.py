"""Run an index operation through the runner when it is up (it owns the shard and keeps the
model warm), or in this process when it is not."""

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
