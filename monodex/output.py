"""Results go to stdout through here and nowhere else: text or one JSON document."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any


def emit(result: Any, *, as_json: bool, render: Callable[[Any], str] | None = None) -> None:
    if as_json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, sort_keys=False) + "\n")
    else:
        text = render(result) if render else json.dumps(result, indent=2, ensure_ascii=False)
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def sanitize(text: str) -> str:
    """Strip terminal control characters (keeping tab/newline) from untrusted strings."""
    return "".join(ch for ch in text if ch in "\t\n" or (ord(ch) >= 32 and ord(ch) != 127))
