"""A `qdrant.url` that answers but is not Qdrant, or refuses the key: errors that say so (issue 15).
The servers here are tiny local http.server instances on 127.0.0.1."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from monodex.indexer.store import open_store

from monodex.disk import paths
from monodex.errors import MonodexError
from monodex.settings.config import QdrantConfig


def _serve(status: int, body: bytes) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_PUT = do_POST = do_GET  # noqa: N815

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


PAGE = b"<html><body><h1>404 Not Found</h1>" + b"<p>nothing here</p>" * 200 + b"</body></html>"


@pytest.fixture
def not_qdrant() -> Iterator[str]:
    yield from _serve(404, PAGE)


@pytest.fixture
def html_ok() -> Iterator[str]:
    yield from _serve(200, b"<html><body>Welcome</body></html>")


@pytest.fixture
def refusing() -> Iterator[str]:
    yield from _serve(403, b'{"status": {"error": "Forbidden"}}')


def _error(url: str, **kw: str) -> MonodexError:
    store = open_store(QdrantConfig(url=url, **kw), paths.resolve())
    with pytest.raises(MonodexError) as err:
        store.info()
    store.close()
    return err.value


@pytest.mark.parametrize("server", ["not_qdrant", "html_ok"])
def test_a_url_that_is_not_qdrant_says_so(server: str, request: pytest.FixtureRequest) -> None:
    url = request.getfixturevalue(server)
    err = _error(url)
    assert f"{url} answers, but not as a Qdrant server" in err.problem
    assert "<html>" not in err.problem and len(err.problem) < 300
    assert "qdrant.url" in err.hint and "6333" in err.hint


def test_a_refused_key_names_the_environment_variable(refusing: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MY_QDRANT_KEY", raising=False)
    err = _error(refusing, api_key_env="MY_QDRANT_KEY")
    assert "refused" in err.problem and "403" in err.problem
    assert "MY_QDRANT_KEY" in err.hint and "is not set" in err.hint and "config.json" not in err.hint
