"""Bad requests never reach the index: a malformed spool entry is quarantined while the good ones
drain, and a label outside the grammar is refused by the operation layer (socket and CLI alike)."""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest
from monodex.indexer import ops
from monodex.indexer.session import Session
from monodex.scheduler import jobs, refresh

from monodex import config, paths, rpc
from monodex.errors import UsageError
from monodex.main import main
from monodex.spool import Request, Spool

TS = "export function answer(): number {\n  return %d;\n}\n"


@pytest.fixture
def repo(git_repo, capsys):  # type: ignore[no-untyped-def]
    r = git_repo({"src/answer.ts": TS % 0}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    capsys.readouterr()
    return r


def _labels(capsys) -> set[str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    assert main(["labels", "--json"]) == 0
    return {r["label"] for r in json.loads(capsys.readouterr().out)["labels"]}


def test_a_crawl_op_with_a_label_outside_the_grammar_is_a_usage_error(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        for label in ("Bad Label:x", 7):
            with pytest.raises(UsageError) as err:
                ops.run(s, "crawl", {"catalog": "acme", "label": label, "commit": "HEAD"})
            assert err.value.exit_code == 2 and "label" in err.value.problem and err.value.hint
    assert _labels(capsys) == {"main"}


def test_the_socket_refuses_a_label_outside_the_grammar(repo, start_runner, capsys) -> None:  # type: ignore[no-untyped-def]
    start_runner(0.3)
    with pytest.raises(UsageError, match="invalid label name 'Bad Label:x': whitespace is not allowed"):
        rpc.call(paths.resolve(), "crawl", {"catalog": "acme", "label": "Bad Label:x", "commit": "HEAD"})
    assert _labels(capsys) == {"main"}


def test_a_spool_entry_with_a_bad_label_is_quarantined_and_the_good_one_refreshes(repo, capsys) -> None:  # type: ignore[no-untyped-def]
    sha = repo.head()
    good = Request("acme", "dev", str(repo.path), "refs/heads/dev", sha, "cli", created_at=2.0)
    s = Spool(paths.resolve().spool_dir)
    s.enqueue(good)
    bad = {**asdict(good), "label": "Bad Label:x", "created_at": 1.0}
    (s.new / "0-bad.json").write_text(json.dumps(bad))

    def refresh_one(request: Request) -> dict[str, object]:
        with Session(config.load(paths.resolve()), paths.resolve()) as session:
            return refresh.refresh_label(session, request)

    report = jobs.drain(s, refresh_one)
    assert [r["label"] for r in report.refreshed] == ["dev"] and report.failed == []
    assert [(q.name, q.reason) for q in s.quarantined()] == [
        ("0-bad.json", "invalid label name 'Bad Label:x': whitespace is not allowed")
    ]
    assert _labels(capsys) == {"main", "dev"}
