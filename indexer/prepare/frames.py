"""Length-prefixed pickle frames over a pipe: how the crawl and its worker processes talk.

Only ever between a monodex process and the worker it started (the same interpreter and code),
never with anything else: pickle runs code as it loads."""

from __future__ import annotations

import pickle
import struct
from typing import IO, Any

_HEAD = struct.Struct("<Q")


def write(out: IO[bytes], obj: Any) -> None:
    body = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(_HEAD.pack(len(body)))
    out.write(body)
    out.flush()


def read(inp: IO[bytes]) -> Any:
    """The next object, or EOFError when the other side closed the pipe."""
    head = _exactly(inp, _HEAD.size)
    return pickle.loads(_exactly(inp, _HEAD.unpack(head)[0]))


def _exactly(inp: IO[bytes], n: int) -> bytes:
    data = inp.read(n)
    if len(data) != n:
        raise EOFError(f"the pipe closed after {len(data)} of {n} bytes")
    return data
