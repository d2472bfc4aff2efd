"""A password in `qdrant.url` never leaves config.json (issue 22), nor does a key in its query
string (`?api_key=...`, issue 35): not on stdout or stderr of any command that reaches the index,
not in `status --json` or `doctor --json`, not in runner.log. The client is the real
qdrant-client, against a local port where nothing listens, so the error also says the server
does not answer."""

from __future__ import annotations

import json
import socket

import pytest

from monodex.disk import paths
from monodex.main import main
from monodex.settings import config
from tests.agents.test_mcp import call  # imported before capsys: the SDK binds sys.stderr then

SECRET = "S3cretPassw0rd"
URLS = {  # how the secret sits in the URL -> (URL with {port}, the URL as it may be shown)
    "password": ("http://admin:{s}@127.0.0.1:{port}", "http://admin:***@127.0.0.1:{port}"),
    "api_key": ("http://127.0.0.1:{port}/?api_key={s}", "http://127.0.0.1:{port}/?api_key=***"),
    "token": ("http://127.0.0.1:{port}?timeout=9&token={s}", "http://127.0.0.1:{port}?timeout=9&token=***"),
}


@pytest.fixture(params=sorted(URLS))
def secret_url(request, git_repo, capsys) -> str:  # type: ignore[no-untyped-def]
    r = git_repo({"a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = URLS[request.param][0].format(s=SECRET, port=port)
    p = paths.resolve()
    raw = json.loads(p.config_file.read_text())
    raw["qdrant"] = {"url": url}
    p.config_file.write_text(json.dumps(raw))
    capsys.readouterr()
    return f"{request.param} {url}"  # the kind, then the URL


def test_the_secret_is_never_shown_and_a_closed_port_does_not_answer(secret_url, capsys) -> None:  # type: ignore[no-untyped-def]
    kind, secret_url = secret_url.split(" ")
    p = paths.resolve()
    shown = secret_url.replace(SECRET, "***")
    assert config.load(p).qdrant.shown_url == shown
    runs = {  # every command that opens the index, so prints the URL when it cannot
        "labels": ["labels"],
        "search": ["search", "--catalog", "acme", "--label", "main", "--text", "a"],
        "crawl": ["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD"],
        "verify": ["verify"],
        "view": ["view", "--catalog", "acme", "--label", "main", "--id", "0123456789abcdef"],
        "diff": ["diff", "--catalog", "acme", "--from", "main", "--to", "main"],
        "gc": ["gc", "--catalog", "acme"],
        "status text": ["status"],
        "status": ["status", "--json"],
        "doctor text": ["doctor"],
        "doctor": ["doctor", "--json"],
        "runner": ["runner"],
    }
    said = {}
    for name, argv in runs.items():
        code = main(argv)
        out, err = capsys.readouterr()
        said[name] = out + err
        assert SECRET not in out + err, (name, out + err)
        if not name.startswith(("status", "doctor")):
            assert code == 1, (name, code, err)
    log = (p.log_dir / "runner.log").read_text()
    assert SECRET not in log and "does not answer" in log
    for name in ("labels", "search", "crawl", "verify", "view", "diff", "gc"):
        assert f"Qdrant at {shown} does not answer" in said[name], said[name]
        assert "answers, but not as a Qdrant server" not in said[name]
    status = json.loads(said["status"])
    assert "does not answer" in json.dumps(status["labels"])
    doctor = json.loads(
        said["doctor"].split("\n", 1)[0] if said["doctor"].startswith("{") else said["doctor"]
    )
    assert any(shown in c["detail"] or "does not answer" in c["detail"] for c in doctor["checks"])


def test_the_mcp_tools_never_show_the_secret(secret_url) -> None:  # type: ignore[no-untyped-def]
    """`monodex mcp` is a command that prints the URL too: in its tool errors."""
    answers = call(
        ("search", {"query": "a", "catalog": "acme", "label": "main"}), ("labels", {}), ("status", {})
    )
    for answer in answers:
        assert SECRET not in answer.content[0].text + json.dumps(answer.structured_content), answer
    assert "does not answer" in answers[0].content[0].text and answers[0].is_error
