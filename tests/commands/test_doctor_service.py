"""doctor checks the installed systemd unit against the config (issue 15)."""

from __future__ import annotations


def test_doctor_checks_the_installed_unit_against_the_config(monorepo, run_json, git_repo) -> None:  # type: ignore[no-untyped-def]
    def service_checks() -> dict[str, dict[str, str]]:
        out = run_json("doctor", "--json")[1]
        return {c["check"]: c for c in out["checks"] if c["check"] in ("service", "runner")}

    assert "service" not in service_checks()  # no unit installed: the runner check covers it
    assert run_json("runner", "install-service")[0] == 0
    checks = service_checks()
    assert checks["service"]["level"] == "ok", checks
    assert (
        "install-service" not in checks["runner"]["hint"] and "systemctl --user" in checks["runner"]["hint"]
    )
    other = git_repo({"b.ts": "export const b = 1;\n"}, name="other")
    assert run_json("catalog", "add", "other", str(other.path))[0] == 0
    checks = service_checks()
    assert checks["service"]["level"] == "warn" and str(other.path) in checks["service"]["detail"]
    assert "install-service" in checks["service"]["hint"] and "daemon-reload" in checks["service"]["hint"]
