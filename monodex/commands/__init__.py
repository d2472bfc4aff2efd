"""Every CLI verb: a module with add_arguments(parser) and run(args) -> int."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from types import ModuleType
from typing import Protocol, cast


class Command(Protocol):
    __doc__: str | None

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    run: Callable[[argparse.Namespace], int]


def _load() -> dict[str, Command]:
    from monodex.commands import (
        catalog,
        chunk,
        crawl,
        diff,
        doctor,
        eval,
        gc,
        hooks,
        labels,
        mcp,
        runner,
        search,
        status,
        use,
        verify,
        view,
    )

    modules: dict[str, ModuleType] = {
        "use": use,
        "catalog": catalog,
        "crawl": crawl,
        "chunk": chunk,
        "search": search,
        "view": view,
        "diff": diff,
        "eval": eval,
        "labels": labels,
        "gc": gc,
        "verify": verify,
        "hooks": hooks,
        "runner": runner,
        "status": status,
        "mcp": mcp,
        "doctor": doctor,
    }
    return {name: cast(Command, mod) for name, mod in modules.items()}


REGISTRY = _load()
