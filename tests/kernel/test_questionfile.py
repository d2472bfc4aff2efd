"""Hand-written question files (`monodex eval --questions`): JSON lines or one document, each
question checked, a bad one named by its line or index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from monodex import requests as rq
from monodex.errors import UsageError
from monodex.requests import questionfile

BENCH_SET = Path(__file__).resolve().parents[2] / "bench" / "eval" / "sparo-hand.json"


def test_json_lines_are_read_and_normalised(tmp_path: Path) -> None:
    f = tmp_path / "mine.jsonl"
    f.write_text(
        '{"query": " where are retries backed off ", "relevant": ["./src/retry.ts"], "kind": "concept"}\n'
        "\n"
        '{"query": "Router", "relevant": ["src/router.ts", "src\\\\router.ts"], "id": 7, "note": "kept"}\n'
    )
    doc = questionfile.read(f)
    assert doc["source"] == "mine.jsonl"
    first, second = doc["queries"]
    assert first["query"] == "where are retries backed off" and first["relevant"] == ["src/retry.ts"]
    assert first["kind"] == "concept" and first["id"].startswith("q-")
    assert second == {"id": "7", "query": "Router", "relevant": ["src/router.ts"], "kind": None}
    # an id made from the query: the same question keeps it (and its split) as the file grows
    f.write_text('{"query": "other", "relevant": ["a.ts"]}\n' + f.read_text())
    assert questionfile.read(f)["queries"][1]["id"] == first["id"]
    # where in a relevant file the answer is, spelled as "relevant" spells the path
    f.write_text('{"query": "Router", "relevant": ["src/router.ts"], "lines": {"./src/router.ts": [[3, 9]]}}\n')
    assert questionfile.read(f)["queries"][0]["lines"] == {"src/router.ts": [[3, 9]]}


def test_a_json_document_of_queries_is_read_as_the_bench_sets_are() -> None:
    doc = json.loads(BENCH_SET.read_text())
    parsed = questionfile.parse(BENCH_SET.read_text(), BENCH_SET.name)
    assert [q["id"] for q in parsed] == [q["id"] for q in doc["queries"]]
    assert [q["relevant"] for q in parsed] == [sorted(q["relevant"]) for q in doc["queries"]]


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"query": "a b", "relevant": ["a.ts"]}\n{"query": "c", "relevant": [}\n', "q.jsonl line 2: not JSON"),
        ('{"query": "a b", "relevant": "a.ts"}\n', 'q.jsonl line 1: "relevant" must be a non-empty list'),
        ('\n{"query": "", "relevant": ["a.ts"]}\n', 'q.jsonl line 2: "query" must be a non-empty string'),
        ('{"query": "a", "relevant": ["/etc/passwd"]}\n', "q.jsonl line 1: \"relevant\" holds '/etc/passwd'"),
        ('{"queries": [{"query": "a", "relevant": ["a.ts"]}, 3]}', "q.jsonl queries[1]: expected an object"),
        ('{"queries": [\n  {"query": "a",\n   "relevant": ["a.ts"],,}\n]}\n', "q.jsonl line 3: not JSON"),
        ('{"query": "a", "relevant": ["a.ts"], "id": 1}\n{"query": "b", "relevant": ["b.ts"], "id": "1"}\n',
         "q.jsonl line 2: the question id '1' is also the one of q.jsonl line 1"),
        ("\n\n", "q.jsonl holds no question"),
        ('{"query": "a", "relevant": ["a.ts"], "lines": [[1, 2]]}\n', 'q.jsonl line 1: "lines" must be an object'),
        ('{"query": "a", "relevant": ["a.ts"], "lines": {"b.ts": [[1, 2]]}}\n',
         "q.jsonl line 1: \"lines\" names 'b.ts', which is not one of its \"relevant\" paths"),
        ('{"query": "a", "relevant": ["a.ts"], "lines": {"a.ts": [[9, 3]]}}\n',
         "q.jsonl line 1: the lines of 'a.ts' must be a list of [first, last] line numbers"),
        ('{"query": "a", "relevant": ["a.ts"], "lines": {"a.ts": [5]}}\n',
         "q.jsonl line 1: the lines of 'a.ts' must be a list of [first, last] line numbers"),
    ],
)  # fmt: skip
def test_a_bad_entry_is_an_error_naming_its_line(text: str, where: str) -> None:
    with pytest.raises(UsageError) as caught:
        questionfile.parse(text, "q.jsonl")
    assert caught.value.problem.startswith(where), caught.value.problem
    assert caught.value.exit_code == 2 and caught.value.hint


def test_the_request_checks_questions_that_come_over_the_socket() -> None:
    good = {"source": "q.jsonl", "queries": [{"query": "a b", "relevant": ["./a.ts"]}]}
    r = rq.build(rq.EvalRequest, {"catalog": "acme", "label": "main", "questions": good})
    assert r.questions is not None and r.questions["queries"][0]["relevant"] == ["a.ts"]
    with pytest.raises(UsageError, match=r"q.jsonl queries\[0\]: \"relevant\""):
        rq.build(rq.EvalRequest, {"catalog": "acme", "label": "main", "questions": {"source": "q.jsonl",
                                  "queries": [{"query": "a", "relevant": []}]}})  # fmt: skip
    with pytest.raises(rq.FieldError, match="use one of"):
        rq.EvalRequest("acme", "main", modes=("hybrid", "fuzzy"))
    assert rq.EvalRequest("acme", "main", modes=("lexical", "hybrid", "lexical")).modes == (
        "hybrid",
        "lexical",
    )
