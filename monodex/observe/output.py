"""Results go to stdout through here and nowhere else: text or one JSON document."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Mapping
from typing import TypeVar

from monodex.schema.wire import to_json

T = TypeVar("T", bound=Mapping[str, object])


def emit(result: T, *, as_json: bool, render: Callable[[T], str] | None = None) -> None:
    """The answer on stdout: as the one JSON document of --json (schema/wire.py), else as text."""
    if as_json:
        sys.stdout.write(to_json(result) + "\n")
    else:
        text = render(result) if render else json.dumps(result, indent=2, ensure_ascii=False)
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def sanitize(text: str) -> str:
    """Strip terminal control characters (keeping tab/newline) from untrusted strings."""
    return "".join(ch for ch in text if ch in "\t\n" or (ord(ch) >= 32 and ord(ch) != 127))


# A stored breadcrumb percent-encodes `:@=+#%` and whitespace, as the original monodex did (so
# payloads agree across both); `--json` keeps it so. People read `@vue/runtime-core:index.ts` and
# `impl Handle.send_event`: every text renderer decodes it here, all but `:` (it separates the
# parts) and what does not print (a newline or tab would break the one line a hit has).
_ESCAPES = re.compile(r"(?:%[0-9A-Fa-f]{2})+")


def crumb(breadcrumb: str | None) -> str:
    """A stored breadcrumb as a person reads it: `%40vue/x:a.rs:impl%20Foo.f` -> `@vue/x:a.rs:impl Foo.f`."""
    return _ESCAPES.sub(_decoded, breadcrumb or "")


def _decoded(run: re.Match[str]) -> str:
    try:
        text = bytes.fromhex(run[0].replace("%", "")).decode("utf-8")
    except UnicodeDecodeError:  # not what enc() writes: shown as stored
        return run[0]
    return "".join(ch if ch != ":" and ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))
