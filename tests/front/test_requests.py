"""The front layer's requests: validated once, the same for every surface, and spelled by each."""

from __future__ import annotations

import pytest

from monodex import requests as rq
from monodex.commands.common import flag
from monodex.errors import UsageError
from monodex.front.mcp import NAMES


def _search(**kw: object) -> rq.SearchRequest:
    return rq.SearchRequest("acme", "main", str(kw.pop("text", "retry")), **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kw", "field"),
    [
        ({"text": "  "}, "text"),
        ({"text": "x" * (rq.MAX_QUERY_CHARS + 1)}, "text"),
        ({"limit": 0}, "limit"),
        ({"per_file": 0}, "per_file"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"fresh": -1.0}, "fresh"),
        ({"kind": "tests"}, "kind"),
        ({"mode": "fuzzy"}, "mode"),
        ({"paths": ("../etc",)}, "paths"),
    ],
)
def test_a_bad_search_field_is_named_by_each_surface_in_its_own_words(
    kw: dict[str, object], field: str
) -> None:
    with pytest.raises(rq.FieldError) as caught:
        _search(**kw)
    assert caught.value.field == field and caught.value.exit_code == 2
    cli = caught.value.spelled(flag)
    mcp = caught.value.spelled(lambda f: NAMES.get(f, f), joiner="=")
    assert flag(field) in cli.problem and "--" not in mcp.problem + mcp.hint
    assert NAMES.get(field, field) in mcp.problem


def test_requests_normalise_what_the_index_compares() -> None:
    r = _search(paths=("./libraries/net/", "src\\x.ts"), lang="TypeScript", package="")
    assert r.paths == ("libraries/net", "src/x.ts") and r.lang == "typescript" and r.package is None


def test_the_wire_round_trips_and_is_checked_like_a_flag() -> None:
    r = _search(paths=("a",), kind="config", max_tokens=300, explain=True)
    assert rq.parse("search", rq.to_wire(r)) == r
    assert rq.to_wire(rq.LabelsRequest()) == {}
    v = rq.ViewRequest.from_id("acme", "main", "0123456789abcdef:2-end")
    assert v.selection() == (2, None) and rq.parse("view", rq.to_wire(v)) == v
    with pytest.raises(UsageError, match="unknown operation 'drop'"):
        rq.parse("drop", {})
    with pytest.raises(rq.FieldError, match="limit: expected a whole number, got .3."):
        rq.parse("search", {"catalog": "acme", "label": "main", "text": "x", "limit": "3"})
    with pytest.raises(rq.FieldError, match="junk is not an argument"):
        rq.parse("labels", {"junk": 1})
    with pytest.raises(rq.FieldError, match="text is required"):
        rq.parse("search", {"catalog": "acme", "label": "main"})
    with pytest.raises(UsageError, match="invalid label name"):
        rq.parse("crawl", {"catalog": "acme", "label": "Bad Label:x", "commit": "HEAD"})


@pytest.mark.parametrize("chunks", ["0", "3-1", "x", "1-", ""])
def test_a_bad_chunk_selection_is_refused(chunks: str) -> None:
    with pytest.raises(rq.FieldError, match="invalid chunks"):
        rq.ViewRequest("acme", "main", path="a.ts", chunks=chunks)


def test_user_text_with_braces_is_quoted_not_formatted() -> None:
    with pytest.raises(rq.FieldError) as caught:
        rq.ViewRequest("acme", "main", file_id="{name}{0}")
    assert "'{name}{0}'" in caught.value.spelled(flag).problem
