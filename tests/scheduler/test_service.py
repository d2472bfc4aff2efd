"""The systemd unit runs against the user's actual config, and doctor notices when it does not."""

from __future__ import annotations

from pathlib import Path

from monodex.scheduler.service import render

from monodex.disk.paths import Paths


def _home_paths() -> Paths:
    home = Path("/home/someone")
    return Paths(
        home / ".config/monodex",
        home / ".local/share/monodex",
        home / ".local/state/monodex",
        Path("/run/user/1000/monodex"),
    )


def test_unit_pins_every_folder_the_cli_uses_and_keeps_tmp_visible(tmp_path: Path) -> None:
    home = render(_home_paths(), [Path("/home/someone/src/acme")])
    assert "PrivateTmp=true" in home
    for var, value in (
        ("XDG_CONFIG_HOME", "/home/someone/.config"),
        ("XDG_DATA_HOME", "/home/someone/.local/share"),
        ("XDG_STATE_HOME", "/home/someone/.local/state"),
        ("XDG_RUNTIME_DIR", "/run/user/1000"),
    ):
        assert f"Environment={var}={value}\n" in home
    assert "-/run/user/1000/monodex" in home  # the socket's folder is writable
    assert "github.com/monodex/monodex" not in home  # no placeholder documentation
    under_tmp = render(_home_paths(), [tmp_path / "repo"])  # a private /tmp would hide it
    assert "PrivateTmp=true" not in under_tmp and f"{tmp_path}/repo" in under_tmp
