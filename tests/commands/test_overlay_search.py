"""Uncommitted edits (issue 21, item 3): a search from a worktree sees its dirty files, laid over
the branch's label, and the label itself never holds them. Real repositories, real linked
worktrees, the real CLI."""

from __future__ import annotations

from typing import Any

from monodex.indexer.points import filters, overlaymeta
from monodex.indexer.session import Session

from monodex.disk import paths
from monodex.settings import config
from tests.conftest import label_filter

RETRY = "libraries/net/src/retry.ts"
COLORS = "libraries/terminal/src/colors.ts"
NEW_TS = """/** Parses a duration such as '5m' or '2h' into milliseconds for the scheduler. */
export function parseZebraDuration(text: string): number {
  const unit: string = text.slice(-1);
  const value: number = Number(text.slice(0, -1));
  return unit === 'h' ? value * 3600000 : value * 60000;
}
"""


def _search(run_json: Any, text: str, *extra: str) -> dict[str, Any]:
    code, found, err = run_json(
        "search", "--catalog", "acme", "--label", "main", "--text", text, "--limit", "5", "--json", *extra
    )
    assert code == 0, err
    return found  # type: ignore[no-any-return]


def _paths(found: dict[str, Any]) -> list[str]:
    return [r["relative_path"] for r in found["results"]]


def _texts(found: dict[str, Any]) -> str:
    return "\n".join(r["text"] for r in found["results"])


def _crawled(monorepo: Any, run_json: Any) -> None:
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err


def test_an_edit_is_found_and_the_old_text_is_not(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    wt = str(monorepo.path)
    old = (monorepo.path / RETRY).read_text()
    monorepo.write(RETRY, old.replace("fetchWithRetry", "fetchWithJitteredRetry"))
    found = _search(run_json, "fetchWithJitteredRetry", "--mode", "lexical", "--worktree", wt)
    assert found["results"][0]["relative_path"] == RETRY
    assert "fetchWithJitteredRetry" in found["results"][0]["text"]
    assert "fetchWithRetry(" not in _texts(found)  # the committed version is hidden
    overlay = found["freshness"]["overlay"]
    assert overlay["applied"] and overlay["files"] == 1 and overlay["paths"] == 1 and overlay["updated"]
    # --committed: the branch as committed
    committed = _search(run_json, "fetchWithRetry", "--mode", "lexical", "--worktree", wt, "--committed")
    assert "fetchWithRetry(" in _texts(committed) and "overlay" not in committed["freshness"]
    # without a worktree nothing changes either
    assert "fetchWithJitteredRetry" not in _texts(
        _search(run_json, "fetchWithJitteredRetry", "--mode", "lexical")
    )


def test_deleted_file_is_hidden_and_untracked_found_and_ignored_not(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    (monorepo.path / COLORS).unlink()
    monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    monorepo.write(".gitignore", "secret/\n")
    monorepo.write("libraries/terminal/src/secret/hidden.ts", NEW_TS.replace("Zebra", "Okapi"))
    wt = str(monorepo.path)
    found = _search(run_json, "colorize terminal text ANSI", "--mode", "lexical", "--worktree", wt)
    assert COLORS not in _paths(found)
    assert COLORS in _paths(_search(run_json, "colorize terminal text ANSI", "--mode", "lexical"))
    found = _search(run_json, "parseZebraDuration", "--mode", "lexical", "--worktree", wt)
    assert _paths(found)[0] == "libraries/terminal/src/duration.ts"
    assert found["results"][0]["package_name"] == "@acme/terminal"
    ignored = _search(run_json, "parseOkapiDuration", "--mode", "lexical", "--worktree", wt, "--limit", "20")
    assert not any("secret" in p for p in _paths(ignored))


def test_the_label_never_holds_uncommitted_text(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    found = _search(run_json, "parseZebraDuration", "--worktree", str(monorepo.path))
    assert _paths(found)[0] == "libraries/terminal/src/duration.ts"
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        texts = [str(r.payload["text"]) for r in s.store.scroll(label_filter(s.store, "acme:main"))]
        assert texts and not any("parseZebraDuration" in t for t in texts)
        state = overlaymeta.list_all(s.store, "acme")[0]
        assert state.label == "main" and state.current.startswith("acme:overlay=")
    code, listed, _ = run_json("labels", "--json")
    assert [r["label"] for r in listed["labels"]] == ["main"]  # an overlay is no label


def test_nothing_changed_reads_no_file(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    import os
    import time

    _crawled(monorepo, run_json)
    target = monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    past = time.time() - 3600  # older than the racy window: the stat cache may trust it
    os.utime(target, (past, past))
    wt = str(monorepo.path)
    first = _search(run_json, "parseZebraDuration", "--mode", "lexical", "--worktree", wt)["freshness"][
        "overlay"
    ]
    assert first["updated"] and first["files_read"] == 1
    again = _search(run_json, "parseZebraDuration", "--mode", "lexical", "--worktree", wt)["freshness"][
        "overlay"
    ]
    assert again == {**again, "updated": False, "files_read": 0, "files": 1}


def test_an_overlay_hit_can_be_viewed_and_gets_its_vectors(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    wt = str(monorepo.path)
    first = _search(run_json, "parse a duration like 5m into milliseconds", "--worktree", wt)
    hit = first["results"][0]
    assert hit["relative_path"] == "libraries/terminal/src/duration.ts"
    assert first["freshness"]["overlay"]["dense_pending"] > 0  # phase one only on the search path
    code, viewed, err = run_json(
        "view", "--catalog", "acme", "--label", "main", "--id", hit["file_id"], "--json"
    )
    assert code == 0, err
    assert "".join(c["text"] for c in viewed["chunks"]) == NEW_TS
    # no runner: the command itself gave the new chunks their vectors after answering
    again = _search(run_json, "parse a duration like 5m into milliseconds", "--worktree", wt)
    assert (
        again["freshness"]["overlay"]["dense_pending"] == 0 and not again["freshness"]["overlay"]["updated"]
    )
    assert again["results"][0]["relative_path"] == "libraries/terminal/src/duration.ts"


def test_the_text_answer_says_the_uncommitted_files_were_searched(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    (monorepo.path / COLORS).unlink()
    code, out, err = run_json(
        "search", "--catalog", "acme", "--label", "main", "--text", "parseZebraDuration", "--mode", "lexical",
        "--worktree", str(monorepo.path),
    )  # fmt: skip
    assert code == 0, err
    assert f"with 1 uncommitted files of {monorepo.path.resolve()} (2 changed paths)" in out.splitlines()[0]


def test_a_worktree_named_through_a_link_is_the_same_overlay(monorepo, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    _crawled(monorepo, run_json)
    monorepo.write("libraries/terminal/src/duration.ts", NEW_TS)
    link = tmp_path / "link-to-acme"
    link.symlink_to(monorepo.path)
    via_link = _search(run_json, "parseZebraDuration", "--mode", "lexical", "--worktree", str(link))
    direct = _search(run_json, "parseZebraDuration", "--mode", "lexical", "--worktree", str(monorepo.path))
    assert via_link["freshness"]["overlay"]["worktree"] == str(monorepo.path.resolve())
    assert direct["freshness"]["overlay"]["updated"] is False  # one overlay, already current
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        assert len(overlaymeta.list_all(s.store)) == 1


def test_a_folder_replaced_by_a_link_out_of_the_repository_is_not_followed(
    monorepo, run_json, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """Issue 35, item 4: `libraries/net/src` becomes a link to a folder outside the checkout that
    holds a `retry.ts` of its own; git lists the tracked retry.ts as deleted, and the overlay must
    neither answer with nor store the outside file (only a link as the last part was refused)."""
    import shutil

    _crawled(monorepo, run_json)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "retry.ts").write_text(NEW_TS.replace("Zebra", "Outsider"))
    shutil.rmtree(monorepo.path / "libraries/net/src")
    (monorepo.path / "libraries/net/src").symlink_to(outside, target_is_directory=True)
    found = _search(run_json, "parseOutsiderDuration", "--mode", "lexical", "--worktree", str(monorepo.path))
    assert "parseOutsiderDuration" not in _texts(found)
    assert RETRY not in _paths(found)  # the committed file is gone from disk: hidden, not replaced
    assert found["freshness"]["overlay"]["files"] == 0 and found["freshness"]["overlay"]["files_read"] == 0
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        texts = [str(r.payload["text"]) for r in s.store.scroll(filters.catalog_chunks("acme"))]
        assert texts and not any("Outsider" in t for t in texts)  # nothing stored or queued to embed


def test_an_uncommitted_script_is_found_by_its_language_and_a_licence_is_not(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    """Issue 34: a new script without a suffix is read by its `#!` line in the overlay too;
    a file without one (a NOTICE) is no script."""
    _crawled(monorepo, run_json)
    monorepo.write("tools/bin/rotate-okapi-keys", "#!/usr/bin/env python3\ndef rotate_okapi_keys():\n    pass\n")
    monorepo.write("tools/NOTICE", "rotate_okapi_keys is a trademark of nobody\n")
    wt = str(monorepo.path)
    found = _search(run_json, "rotate_okapi_keys", "--mode", "lexical", "--worktree", wt)
    assert _paths(found) == ["tools/bin/rotate-okapi-keys"]
    found = _search(run_json, "rotate_okapi_keys", "--mode", "lexical", "--worktree", wt, "--lang", "python")
    assert _paths(found) == ["tools/bin/rotate-okapi-keys"]
