"""Operator paths around labels and catalogs (issue 15): branch names, track globs, an explicit
remove that sticks, and labels of catalogs that are no longer registered."""

from __future__ import annotations

import json

from monodex.hooks.policy import Skip
from monodex.hooks.run import decide

from monodex.disk import paths
from monodex.runner.spool import Request


def _config() -> dict:  # type: ignore[type-arg]
    return json.loads(paths.resolve().config_file.read_text())


def test_an_invalid_label_suggests_the_mapped_name_and_branch(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("search", "--catalog", "acme", "--label", "feature/Login_Flow", "--text", "x")
    assert code == 2 and "'feature/login-flow'" in err and "--branch feature/Login_Flow" in err
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "feature/Foo", "--commit", "HEAD")
    assert code == 2 and "'feature/foo'" in err
    code, _, err = run_json("crawl", "--catalog", "acme", "--commit", "HEAD", "--branch", "___")
    assert code == 2 and "maps to no valid label" in err


def test_branch_flag_context_label_and_an_explicit_remove_that_sticks(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    monorepo.git("checkout", "-q", "-b", "feature/Login_Flow")
    assert run_json("catalog", "track", "acme", "feature/*")[0] == 0
    assert run_json("use", "--catalog", "acme", "--label", "main")[0] == 0
    code, out, err = run_json("crawl", "--commit", "HEAD", "--json")  # the label from 'use'
    assert code == 0 and out["label"] == "main", err
    code, out, err = run_json("crawl", "--branch", "feature/Login_Flow", "--commit", "HEAD", "--json")
    assert code == 0 and (out["catalog"], out["label"]) == ("acme", "feature/login-flow"), err
    code, out, _ = run_json("search", "--branch", "feature/Login_Flow", "--text", "retry", "--json")
    assert code == 0 and out["results"]
    code, out, _ = run_json("verify", "--branch", "feature/Login_Flow", "--json")
    assert code == 0 and [r["label"] for r in out["labels"]] == ["feature/login-flow"]
    assert isinstance(decide("post-commit", [], {}, monorepo.path), Request)

    code, out, _ = run_json("labels", "rm", "--branch", "feature/Login_Flow", "--json")
    assert code == 0 and out["label"] == "feature/login-flow"
    skip = decide("post-commit", [], {}, monorepo.path)  # the track glob matches, the remove wins
    assert isinstance(skip, Skip) and "labels rm" in skip.reason, skip
    assert run_json("catalog", "track", "acme", "feature/*")[0] == 0  # tracking it again resumes
    assert isinstance(decide("post-commit", [], {}, monorepo.path), Request)

    assert run_json("crawl", "--branch", "feature/Login_Flow", "--commit", "HEAD")[0] == 0
    assert run_json("labels", "rm", "--branch", "feature/Login_Flow")[0] == 0
    assert isinstance(decide("post-commit", [], {}, monorepo.path), Skip)
    assert run_json("crawl", "--branch", "feature/Login_Flow", "--commit", "HEAD")[0] == 0  # so does a crawl
    assert isinstance(decide("post-commit", [], {}, monorepo.path), Request)


def test_catalog_track_untrack_and_list(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run_json("catalog", "track", "acme", "feature/*", "--json")
    assert code == 0 and out["track"] == ["feature/*"]
    assert run_json("catalog", "track", "acme", "release-*")[0] == 0
    assert _config()["catalogs"]["acme"]["track"] == ["feature/*", "release-*"]
    code, out, _ = run_json("catalog", "list", "--json")
    assert out["catalogs"][0]["track"] == ["feature/*", "release-*"]
    code, text, _ = run_json("catalog", "list")
    assert "feature/*" in text and "release-*" in text
    code, out, _ = run_json("catalog", "untrack", "acme", "feature/*", "--json")
    assert code == 0 and out["track"] == ["release-*"]
    code, _, err = run_json("catalog", "untrack", "acme", "nope/*")
    assert code == 2 and "release-*" in err
    code, _, err = run_json("catalog", "track", "acme", "feature/[")
    assert code == 2 and "glob" in err


def test_labels_of_a_removed_catalog_can_be_listed_removed_and_purged(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.git("branch", "-q", "topic")
    assert run_json("crawl", "--catalog", "acme", "--label", "topic", "--commit", "topic")[0] == 0
    code, text, _ = run_json("catalog", "rm", "acme")
    assert code == 0 and "--purge" in text
    code, out, _ = run_json("labels", "--catalog", "acme", "--json")
    assert code == 0 and [r["label"] for r in out["labels"]] == ["main", "topic"]
    code, out, _ = run_json("doctor", "--json")
    leftover = [c for c in out["checks"] if c["check"] == "leftover labels"]
    assert leftover and leftover[0]["level"] == "warn" and "acme" in leftover[0]["detail"]
    assert "monodex catalog rm acme --purge" in leftover[0]["hint"]
    code, out, err = run_json("labels", "rm", "--catalog", "acme", "--label", "topic", "--json")
    assert code == 0 and out["label"] == "topic", err
    code, out, err = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0, err
    code, out, err = run_json("catalog", "rm", "acme", "--purge", "--json")
    assert code == 0 and out["labels_removed"] == ["main"], err
    code, out, _ = run_json("labels", "--json")
    assert out["labels"] == []
    code, _, err = run_json("gc", "--catalog", "acme")  # nothing left: unknown again
    assert code == 2 and "unknown catalog" in err


def test_catalog_rm_purge_of_a_registered_catalog(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    from monodex.indexer.history.cochanges import db_path

    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")[0] == 0
    history = db_path(paths.resolve().state_dir, "acme")
    assert history.exists()  # the crawl counted the catalog's commits
    code, out, err = run_json("catalog", "rm", "acme", "--purge", "--json")
    assert code == 0 and out["labels_removed"] == ["main"] and out["chunks_deleted"] > 0, err
    assert _config()["catalogs"] == {}
    assert not history.exists()
    assert run_json("labels", "--json")[1]["labels"] == []


def test_a_request_queued_before_labels_rm_does_not_bring_the_label_back(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    """The hook queued a refresh, then the user removed the label before the runner drained it:
    the remove wins (the drain skips the request, the mark stays), as it does for later hooks."""
    from monodex.indexer.ops import background
    from monodex.indexer.session import Session
    from monodex.scheduler import jobs

    from monodex.labels import known_labels
    from monodex.runner.spool import Spool
    from monodex.settings import config

    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")[0] == 0
    queued = decide("post-commit", [], {}, monorepo.path)
    assert isinstance(queued, Request)
    p = paths.resolve()
    spool = Spool(p.spool_dir)
    spool.enqueue(queued)
    assert run_json("labels", "rm", "--catalog", "acme", "--label", "main")[0] == 0

    def run(request: Request) -> dict[str, object]:
        with Session(config.load(p), p) as s:
            return background.refresh_label(s, request)

    report = jobs.drain(spool, run)
    assert not report.failed and not spool.pending()
    code, out, _ = run_json("labels", "--json")
    assert code == 0 and out["labels"] == []
    assert "main" in known_labels.removed(p.state_dir, "acme")
