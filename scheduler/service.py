"""The systemd user unit: written from the template shipped in monodex.systemd, for the folders
and repositories of the user's actual config; `drift` tells doctor when the installed one no
longer matches."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from monodex.disk import paths as locations
from monodex.disk.paths import Paths

UNIT = "monodex-runner.service"
_TMP = (Path("/tmp"), Path("/var/tmp"))


def unit_dir(paths: Paths | None = None) -> Path:
    return (paths or locations.resolve()).unit_dir


def _under_tmp(path: Path) -> bool:
    resolved = path.resolve()
    return any(resolved == t or t in resolved.parents for t in _TMP)


def _documentation() -> str:
    # The runner's page of the installed source tree's manual when there is one; no made-up address otherwise.
    page = Path(__file__).resolve().parents[1] / "docs" / "runner.md"
    return f"Documentation=file://{page}\n" if page.is_file() else ""


def render(paths: Paths, repos: list[Path]) -> str:
    template = (resources.files("monodex.systemd") / UNIT).read_text()
    # The runner writes its index, spool, logs and socket, and reads the repositories it indexes.
    writable = [paths.data_dir, paths.state_dir, paths.config_dir, paths.runtime_dir, *repos]
    hidden = [p for p in writable if _under_tmp(p)]
    private_tmp = (
        f"# PrivateTmp is off: {hidden[0]} is under /tmp, which a private /tmp would hide"
        if hidden
        else "PrivateTmp=true"
    )
    env = {
        "XDG_CONFIG_HOME": paths.config_dir.parent,
        "XDG_DATA_HOME": paths.data_dir.parent,
        "XDG_STATE_HOME": paths.state_dir.parent,
    }
    if paths.runtime_dir != paths.state_dir / "run":  # XDG_RUNTIME_DIR was set for the CLI
        env["XDG_RUNTIME_DIR"] = paths.runtime_dir.parent
    return template.format(
        documentation=_documentation(),
        python=sys.executable,
        private_tmp=private_tmp,
        read_write=" ".join(f"-{p}" for p in writable),
        environment="".join(f"Environment={k}={v}\n" for k, v in env.items()),
    )


def install(paths: Paths, repos: list[Path]) -> Path:
    target = unit_dir(paths) / UNIT
    target.parent.mkdir(parents=True, exist_ok=True)
    for folder in (paths.data_dir, paths.state_dir, paths.runtime_dir):
        # ReadWritePaths skips a missing folder ('-'), which would leave it read-only for good.
        folder.mkdir(parents=True, exist_ok=True)
    target.write_text(render(paths, repos))
    return target


def installed(paths: Paths | None = None) -> Path | None:
    target = unit_dir(paths) / UNIT
    return target if target.is_file() else None


def drift(paths: Paths, repos: list[Path]) -> list[str]:
    """Lines the installed unit lacks compared with one rendered for this config ([] when in
    step); comments and blank lines do not count."""
    target = installed(paths)
    if target is None:
        return []

    def lines(text: str) -> set[str]:
        return {ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")}

    have, want = lines(target.read_text()), lines(render(paths, repos))
    keys = [ln.partition("=")[0] for ln in have]
    installed_words = {ln.partition("=")[0]: set(ln.partition("=")[2].split()) for ln in have}
    out = []
    for line in sorted(want - have):
        key, _, value = line.partition("=")
        # A list of one line (ReadWritePaths): only the entries the unit lacks, so that doctor's
        # 400 characters name a new repository however long the folders it already has are.
        lacking = [w for w in value.split() if w not in installed_words.get(key, ())]
        one_list = keys.count(key) == 1 and len(value.split()) > 1
        out.append(f"{key}={' '.join(lacking)}" if one_list and lacking else line)
    return out


def uninstall(paths: Paths | None = None) -> Path | None:
    target = unit_dir(paths) / UNIT
    if target.exists():
        target.unlink()
        return target
    return None
