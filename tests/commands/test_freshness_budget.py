"""Every search answer states how fresh it is; `--fresh` waits for the branch's commit;
`--max-tokens` packs results into a budget counted with the model's own tokenizer."""

from __future__ import annotations

import json

import pytest
from monodex.indexer.embed.spec import default_spec
from monodex.indexer.read import budget
from tokenizers import Tokenizer

from monodex.disk import paths
from monodex.runner import spool

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json")


def _fn(i: int) -> str:
    return (
        f"/** Computes the checksum number {i} of a payload for the upload protocol. */\n"
        f"export function checksum{i}(payload: Uint8Array): number {{\n"
        f"  let sum: number = {i};\n"
        "  for (const byte of payload) {\n"
        f"    sum = (sum * 31 + byte + {i}) % 65521;\n"
        "  }\n"
        "  return sum;\n"
        "}\n"
    )


def test_search_states_the_labels_freshness(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    first = crawled.head()
    code, found, err = run_json(*SEARCH, "--text", "retry with backoff")
    assert code == 0, err
    assert found["freshness"] == {
        "indexed_commit": first,
        "complete": True,
        "source_kind": "git-commit",
        "label": "main",
        "branch": "main",
        "branch_commit": first,
        "fresh": True,
        "refresh_pending": False,
        "dense_coverage": 1.0,
        "worktree": None,  # not searched from where you stand: flags named the label
        "commit": first,  # the commit the answer reflects
    }
    crawled.write("libraries/net/src/retry.ts", "export const retries: number = 5;\n")
    second = crawled.commit("fewer words")
    f = run_json(*SEARCH, "--text", "retry with backoff")[1]["freshness"]
    assert (f["indexed_commit"], f["branch_commit"], f["fresh"], f["refresh_pending"]) == (
        first,
        second,
        False,
        False,
    )
    spool.default(paths.resolve().state_dir).enqueue(
        spool.Request(
            "acme", "main", str(crawled.path), "refs/heads/main", second, "post-commit", spool.now()
        )
    )
    assert run_json(*SEARCH, "--text", "retry")[1]["freshness"]["refresh_pending"] is True
    code, text, _ = run_json("search", "--catalog", "acme", "--label", "main", "--text", "retry")
    assert code == 0 and f"STALE: branch main is at {second[:12]}; a refresh is pending" in text


def test_a_label_named_after_no_branch_has_no_freshness_verdict(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "v1.0", "--commit", "HEAD", "--json")
    assert code == 0, err
    f = run_json("search", "--catalog", "acme", "--label", "v1.0", "--text", "colors", "--json")[1][
        "freshness"
    ]
    assert f["branch"] is None and f["fresh"] is None and f["indexed_commit"] == crawled.head()


def test_fresh_without_a_runner_refreshes_the_label_before_answering(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    crawled.write("libraries/net/src/zip.ts", _fn(7).replace("checksum", "inflateGzipStream"))
    head = crawled.commit("add gzip")
    code, found, err = run_json(*SEARCH, "--text", "inflate a gzip stream", "--fresh", "120")
    assert code == 0, err
    assert found["freshness"]["fresh"] is True and found["freshness"]["indexed_commit"] == head
    assert found["freshness"]["wait"]["reached"] is True
    assert found["results"][0]["relative_path"] == "libraries/net/src/zip.ts"


def test_fresh_stops_at_its_bound_and_the_label_stays_resumable(crawled, run_json, single_phase) -> None:  # type: ignore[no-untyped-def]
    single_phase()  # a refresh that takes minutes (two-phase: tests/commands/test_two_phase.py)
    before = crawled.head()
    for i in range(40):  # ~200 new chunks: minutes of embedding on 2 cores, far beyond the bound
        crawled.write(f"libraries/net/src/sum{i}.ts", "".join(_fn(i * 10 + j) for j in range(5)))
    head = crawled.commit("many files")
    code, found, err = run_json(*SEARCH, "--text", "checksum", "--fresh", "1")
    assert code == 0, err
    f = found["freshness"]
    assert f["wait"]["reached"] is False and f["fresh"] is False
    assert f["branch_commit"] == head and f["refresh_pending"] is True  # marked in progress
    assert 1 <= f["wait"]["waited_seconds"] < 30
    assert f["indexed_commit"] in (before, head) and f["complete"] is False
    code, summary, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"
    )
    assert code == 0, err
    assert summary["files_reused"] + summary["files_embedded"] > 0
    assert run_json(*SEARCH, "--text", "checksum")[1]["freshness"]["fresh"] is True


def _counter() -> Tokenizer:
    tok = Tokenizer.from_file(str(default_spec().tokenizer_path))
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.mark.parametrize("max_tokens", [40, 120, 400, 5000])
def test_budget_is_never_exceeded_and_what_is_left_out_is_listed(monorepo, run_json, max_tokens) -> None:  # type: ignore[no-untyped-def]
    for i in range(3):
        monorepo.write(f"libraries/net/src/check{i}.ts", "".join(_fn(i * 10 + j) for j in range(6)))
    monorepo.commit("checksums")
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    query = ("--text", "checksum of a payload", "--limit", "12", "--per-file", "6")
    plain = run_json(*SEARCH, *query)[1]["results"]
    code, found, err = run_json(*SEARCH, *query, "--max-tokens", str(max_tokens))
    assert code == 0, err
    tok = _counter()
    spent = [
        len(tok.encode(budget.header(b) + "\n" + b["text"], add_special_tokens=False).ids)
        for b in found["results"]
    ]
    assert sum(spent) <= max_tokens
    assert spent == [b["tokens"] for b in found["results"]]
    assert found["budget"]["used_tokens"] == sum(spent)
    packed = sum(len(b["chunk_ordinals"]) for b in found["results"])
    assert packed + len(found["budget"]["omitted"]) == len(plain)  # every hit is shown or listed
    if max_tokens == 5000:
        assert not found["budget"]["omitted"] and not found["budget"]["truncated"]
        # neighbouring chunks of one file come back as one block holding the file's own lines
        merged = [b for b in found["results"] if len(b["chunk_ordinals"]) > 1]
        assert merged, "six functions per file: some hits must be neighbours"
        for b in merged:
            lines = (monorepo.path / b["relative_path"]).read_text().splitlines(keepends=True)
            assert b["text"] == "".join(lines[b["start_line"] - 1 : b["end_line"]])
    if max_tokens == 40:
        assert found["budget"]["omitted"]


def test_pack_cuts_at_a_line_and_merges_neighbours() -> None:
    def words(text: str) -> int:
        return len(text.split())

    def hit(ordinal: int, score: float, first: int, fid: str = "a" * 16) -> dict[str, object]:
        text = "".join(f"line {first + k} of chunk {ordinal}\n" for k in range(5))
        return {
            "file_id": fid,
            "relative_path": f"src/{fid[0]}.ts",
            "chunk_ordinal": ordinal,
            "start_line": first,
            "end_line": first + 4,
            "score": score,
            "text": text,
        }

    hits = [hit(2, 0.9, 6), hit(1, 0.8, 1), hit(5, 0.7, 21), hit(1, 0.6, 1, "b" * 16)]
    blocks, summary = budget.pack(hits, 70, words)  # a hit: 5 lines of 5 words + a 1-word header
    assert [b["chunk_ordinals"] for b in blocks] == [[1, 2], [5]]
    assert blocks[0]["start_line"] == 1 and blocks[0]["end_line"] == 10 and blocks[0]["score"] == 0.9
    assert blocks[1]["truncated"] and blocks[1]["end_line"] == 21 + 3 - 1  # 3 lines: 16 words
    assert summary["used_tokens"] == 51 + 16  # the merged pair, then 3 of 5 lines in the 19 left
    assert [o["file_id"] for o in summary["omitted"]] == ["b" * 16]
    assert json.dumps(summary)  # plain JSON for every transport


def test_budget_packing_never_drops_a_higher_hit_for_a_lower_one() -> None:
    """Issue 14: with a tight budget the top hit was skipped and hits ranked 7 and 10 were packed.
    The first hit that does not fit whole is cut at a line to the room left, and packing stops
    there: every hit ranked below it is listed as omitted, never packed in its place."""

    def words(text: str) -> int:
        return len(text.split())

    def hit(fid: str, score: float, lines: int) -> dict[str, object]:
        return {
            "file_id": fid * 16,
            "relative_path": f"src/{fid}.ts",
            "chunk_ordinal": 1,
            "start_line": 1,
            "end_line": lines,
            "score": score,
            "text": "".join(f"word word word word {k}\n" for k in range(lines)),
        }

    hits = [hit("a", 0.9, 20), hit("b", 0.5, 1), hit("c", 0.4, 1)]  # a: 101 words, b and c: 6
    blocks, summary = budget.pack(hits, 13, words)  # room for b and c whole, or 2 lines of a
    assert [b["file_id"] for b in blocks] == ["a" * 16]
    assert blocks[0]["truncated"] and blocks[0]["end_line"] == 2 and summary["used_tokens"] == 11
    assert [o["file_id"] for o in summary["omitted"]] == ["b" * 16, "c" * 16]  # in rank order
    blocks, summary = budget.pack(hits, 5, words)  # not even one line of a: nothing ranked lower
    assert blocks == [] and [o["file_id"] for o in summary["omitted"]] == ["a" * 16, "b" * 16, "c" * 16]


def test_freshness_never_parses_all_packed_refs(crawled, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every answer's freshness reads the branch heads. Through dulwich that parsed and checked
    every line of packed-refs, tags included: ~150 ms a search on microsoft/rushstack (25,592
    refs). git's own for-each-ref reads refs/heads/ only."""
    import dulwich.refs

    for i in range(50):
        crawled.git("tag", f"v1.{i}")
    crawled.git("pack-refs", "--all")

    def parsed(*_a: object, **_k: object) -> None:
        raise AssertionError("packed-refs parsed for a search's freshness")

    monkeypatch.setattr(dulwich.refs, "read_packed_refs_with_peeled", parsed)
    monkeypatch.setattr(dulwich.refs, "read_packed_refs", parsed)
    code, found, err = run_json(*SEARCH, "--text", "retry with backoff")
    assert code == 0, err
    assert found["freshness"]["fresh"] is True and found["freshness"]["branch"] == "main"
