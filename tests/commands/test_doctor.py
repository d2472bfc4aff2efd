"""`monodex doctor` names what is wrong with an installation and what to do about it."""

from __future__ import annotations

import json

from monodex.disk import paths
from monodex.main import main


def _levels(found: dict) -> dict[str, str]:  # type: ignore[type-arg]
    return {c["check"]: c["level"] for c in found["checks"]}


def test_a_fresh_installation_warns_and_a_set_up_one_is_healthy(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, found, err = run_json("doctor", "--json")
    assert code == 0, err
    levels = _levels(found)
    assert levels["config"] == "ok" and levels["model"] == "ok"
    assert levels["index"] == "warn" and levels["catalog acme"] == "warn" and levels["runner"] == "warn"
    hints = {c["check"]: c["hint"] for c in found["checks"]}
    assert hints["catalog acme"] == f"monodex hooks install --repo {monorepo.path}"
    assert levels["history acme"] == "warn" and "monodex crawl --catalog acme" in hints["history acme"]
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    assert main(["hooks", "install", "--repo", str(monorepo.path)]) == 0
    found = run_json("doctor", "--json")[1]
    assert _levels(found)["index"] == "ok" and _levels(found)["catalog acme"] == "ok"
    history = next(c for c in found["checks"] if c["check"] == "history acme")
    assert history["level"] == "ok" and " commits counted (" in history["detail"], history
    assert found["ok"] is True
    # what `git clone --depth 1` leaves: the history ends at the commit named in .git/shallow
    (monorepo.path / ".git" / "shallow").write_text(monorepo.head() + "\n")
    found = run_json("doctor", "--json")[1]
    history = next(c for c in found["checks"] if c["check"] == "history acme")
    assert history["level"] == "warn" and "the clone is shallow" in history["detail"], history
    assert history["hint"].startswith(f"git -C {monorepo.path} fetch --unshallow"), history


def test_broken_parts_are_errors_with_exit_1(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    cfg = json.loads(p.config_file.read_text())
    cfg["catalogs"]["acme"]["path"] = str(monorepo.path / "gone")
    p.config_file.write_text(json.dumps(cfg))
    code, found, _ = run_json("doctor", "--json")
    assert code == 1 and found["ok"] is False
    broken = next(c for c in found["checks"] if c["check"] == "catalog acme")
    assert broken["level"] == "error" and "does not exist" in broken["detail"] and broken["hint"]
    p.config_file.write_text("{not json")
    code, found, _ = run_json("doctor", "--json")
    assert code == 1 and [c["check"] for c in found["checks"]] == ["config"]
    code, text, _ = run_json("doctor")
    assert code == 1 and text.startswith("ERROR config:")
