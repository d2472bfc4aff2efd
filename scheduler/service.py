"""The systemd user unit: written from the template shipped in monodex.systemd."""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

from monodex.paths import Paths

UNIT = "monodex-runner.service"


def unit_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "systemd" / "user"


def render(paths: Paths, repos: list[Path]) -> str:
    template = (resources.files("monodex.systemd") / UNIT).read_text()
    # The runner writes its index, spool and logs, and reads the repositories it indexes.
    writable = [paths.data_dir, paths.state_dir, paths.config_dir, *repos]
    env = "".join(
        f"Environment={var}={os.environ[var]}\n"
        for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")
        if os.environ.get(var)
    )
    return template.format(
        python=sys.executable,
        read_write=" ".join(f"-{p}" for p in writable),
        environment=env,
    )


def install(paths: Paths, repos: list[Path]) -> Path:
    target = unit_dir() / UNIT
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(render(paths, repos))
    return target


def uninstall() -> Path | None:
    target = unit_dir() / UNIT
    if target.exists():
        target.unlink()
        return target
    return None
