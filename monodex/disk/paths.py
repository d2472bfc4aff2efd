"""The only reader of XDG_* and HOME: every location monodex uses."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from monodex.errors import MonodexError

APP = "monodex"
# The index, the spool and the logs hold the indexed code's text or point at it: whatever monodex
# creates is for its user only (folders 0700, files 0600), as its socket always was.
PRIVATE_UMASK = 0o077


def _base(var: str, fallback: str) -> Path:
    value = os.environ.get(var)
    if value and os.path.isabs(value):
        return Path(value)
    if os.environ.get("MONODEX_FORBID_HOME") == "1":
        # Tripwire for tests: resolving the real home would touch a developer's index.
        raise MonodexError(f"{var} is not set while MONODEX_FORBID_HOME=1", "isolate XDG dirs")
    return Path.home() / fallback


@dataclass(frozen=True)
class Paths:
    config_dir: Path
    data_dir: Path
    state_dir: Path
    runtime_dir: Path

    @property
    def config_file(self) -> Path:
        return self.config_dir / "config.json"

    @property
    def context_file(self) -> Path:
        return self.config_dir / "context.json"

    @property
    def user_crawl_file(self) -> Path:
        return self.config_dir / "crawl.json"

    @property
    def shard_dir(self) -> Path:
        return self.data_dir / "qdrant"

    @property
    def spool_dir(self) -> Path:
        return self.state_dir / "spool"

    @property
    def crawls_dir(self) -> Path:
        """One small file per crawl running, with its progress and memory (`monodex status`)."""
        return self.state_dir / "crawls"

    @property
    def log_dir(self) -> Path:
        return self.state_dir / "logs"

    @property
    def socket_path(self) -> Path:
        return self.runtime_dir / "runner.sock"

    @property
    def model_stamp_dir(self) -> Path:
        """Stamps of model files whose sha256 was checked (embed/stamp.py)."""
        return self.state_dir / "model-verified"

    @property
    def unit_dir(self) -> Path:
        """systemd's folder of user units: $XDG_CONFIG_HOME/systemd/user."""
        return self.config_dir.parent / "systemd" / "user"


def resolve() -> Paths:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    state = _base("XDG_STATE_HOME", ".local/state") / APP
    return Paths(
        config_dir=_base("XDG_CONFIG_HOME", ".config") / APP,
        data_dir=_base("XDG_DATA_HOME", ".local/share") / APP,
        state_dir=state,
        runtime_dir=Path(runtime) / APP if runtime else state / "run",
    )


def private() -> int:
    """Make what this process creates from now on private to its user; returns the old umask."""
    old = os.umask(PRIVATE_UMASK)
    os.umask(old | PRIVATE_UMASK)
    return old
