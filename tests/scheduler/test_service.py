"""The systemd unit runs against the user's actual config, and doctor notices when it does not."""

from __future__ import annotations

from pathlib import Path

from monodex.scheduler.service import drift, install, render

from monodex.disk.paths import Paths


def _home_paths() -> Paths:
    home = Path("/home/someone")
    return Paths(
        home / ".config/monodex",
        home / ".local/share/monodex",
        home / ".local/state/monodex",
        Path("/run/user/1000/monodex"),
    )


def test_unit_pins_every_folder_the_cli_uses_and_keeps_tmp_visible() -> None:
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
    # a private /tmp would hide it (a path of its own: the tests' folders may be in /dev/shm)
    under_tmp = render(_home_paths(), [Path("/tmp/someone/repo")])
    assert "PrivateTmp=true" not in under_tmp and "-/tmp/someone/repo" in under_tmp


def test_drift_names_the_repository_a_unit_lacks_however_long_the_other_folders_are(tmp_path: Path) -> None:
    """doctor shows 400 characters of what the unit lacks: a catalog added since the unit was
    installed must be in them, with the folders the unit already has left out."""
    deep = tmp_path / ("x" * 60)
    p = Paths(deep / "config", deep / "data", deep / "state", deep / "run")
    repos = [Path("/home/someone/src") / f"{'r' * 60}{i}" for i in range(4)]
    install(p, repos)
    assert drift(p, repos) == []
    added = Path("/home/someone/src/added")
    assert drift(p, [*repos, added]) == [f"ReadWritePaths=-{added}"]
