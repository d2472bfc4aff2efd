"""An interrupted first crawl is an incomplete crawl of its commit, and verify says so (issue 12
item 5): every `ok: false` exits 1, `verify --repair` finishes the crawl."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from monodex.indexer import session
from monodex.indexer.session import Session
from monodex.indexer.store.base import Point
from monodex.indexer.write import crawlrun

from monodex.disk import paths
from monodex.settings import config


class Interrupting:
    """The real store; the Nth upsert (1-based) raises KeyboardInterrupt, as Ctrl-C would."""

    def __init__(self, inner: Any, n: int) -> None:
        self.inner, self.n, self.upserts = inner, n, 0

    def upsert(self, points: Sequence[Point]) -> None:
        self.upserts += 1
        if self.upserts == self.n:
            raise KeyboardInterrupt
        self.inner.upsert(points)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _interrupted_crawl(label: str, commit: str) -> None:
    p = paths.resolve()
    cfg = config.load(p)
    store = session.store(cfg, p)
    # upsert 1 marks the label in progress, 2 is the first upload of chunks: stop there.
    with Session(cfg, p, store=Interrupting(store, 2)) as s, pytest.raises(KeyboardInterrupt):
        crawlrun.crawl(s, crawlrun.Request(cfg.catalog("acme"), label, commit))
    store.close()


def _row(run_json, label: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    code, listed, _ = run_json("labels", "--json")
    assert code == 0
    return next(r for r in listed["labels"] if r["label"] == label)  # type: ignore[no-any-return]


def test_an_interrupted_first_crawl_is_an_incomplete_crawl_of_its_commit(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    head = monorepo.head()
    _interrupted_crawl("main", "HEAD")
    row = _row(run_json, "main")
    assert (row["commit_oid"], row["crawl_complete"], row["source_kind"]) == (head, False, "git-commit")
    code, text, _ = run_json("labels")
    assert code == 0 and f"incomplete crawl of {head[:12]}" in text and "(working dir)" not in text

    code, found, err = run_json("verify", "--json")
    assert code == 1, err
    (checked,) = found["labels"]
    assert checked["ok"] is False and "skipped" not in checked
    drift = checked["drift"]
    assert drift["incomplete_label"] == 1 and drift["incomplete_sentinels"] + drift["missing_files"] > 0
    code, text, _ = run_json("verify")
    assert code == 1 and "incomplete label 1" in text

    code, repaired, err = run_json("verify", "--repair", "--json")
    assert code == 0 and repaired["labels"][0]["ok_after_repair"] is True, err
    row = _row(run_json, "main")
    assert (row["commit_oid"], row["crawl_complete"]) == (head, True)
    code, clean, _ = run_json("verify", "--json")
    assert code == 0 and clean["labels"][0]["ok"] is True


def test_an_interrupted_refresh_is_shown_and_finished_at_its_target(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    first = monorepo.head()
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", first, "--json")[0] == 0
    monorepo.write("libraries/net/src/extra.ts", "export const extra: number = 1;\n")
    second = monorepo.commit("extra")
    _interrupted_crawl("main", second)
    row = _row(run_json, "main")
    # Still claims only what was complete, and names the commit the unfinished crawl aims at.
    assert (row["commit_oid"], row["target_commit_oid"], row["crawl_complete"]) == (first, second, False)
    assert f"incomplete crawl of {second[:12]}" in run_json("labels")[1]
    code, repaired, err = run_json("verify", "--repair", "--json")
    assert code == 0 and repaired["labels"][0]["ok_after_repair"] is True, err
    row = _row(run_json, "main")
    assert (row["commit_oid"], row["crawl_complete"]) == (second, True)
    assert run_json("verify", "--json")[0] == 0


def test_a_label_of_an_unregistered_catalog_fails_verify_with_a_hint(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    assert run_json("catalog", "rm", "acme")[0] == 0
    for argv in ((), ("--repair",)):
        code, found, _ = run_json("verify", *argv, "--json")
        assert code == 1
        (row,) = found["labels"]
        assert row["ok"] is False and "not registered" in row["problem"]
        assert "monodex labels rm --catalog acme --label main" in row["hint"]
    code, text, _ = run_json("verify")
    assert code == 1 and "not registered" in text and "labels rm" in text
    # The hint works although the catalog is gone.
    assert run_json("labels", "rm", "--catalog", "acme", "--label", "main", "--json")[0] == 0
    code, out, _ = run_json("verify", "--json")
    assert code == 0 and out["labels"] == []


def test_working_dir_labels_are_not_checked_and_do_not_fail_verify(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json("crawl", "--catalog", "acme", "--label", "wd", "--working-dir", "--json")[0] == 0
    code, found, _ = run_json("verify", "--json")
    (row,) = found["labels"]
    assert code == 0 and row["ok"] is None and "working-directory" in row["skipped"]
    assert json.dumps(row)  # plain JSON
