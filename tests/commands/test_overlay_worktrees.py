"""Overlays of linked worktrees (`git worktree add`): each worktree sees its own edits over its
branch's label; an overlay whose worktree is gone, or checks out another branch, is dropped by GC
with the chunks only it held; the runner gives the same answers as a local search."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from monodex.indexer.points import filters, overlaymeta
from monodex.indexer.points.membership import Held
from monodex.indexer.session import Session

from monodex.disk import paths
from monodex.settings import config

RETRY = "libraries/net/src/retry.ts"
_ARGV = ("search", "--catalog", "acme", "--label")


def _search(run_json: Any, label: str, text: str, *extra: str) -> dict[str, Any]:
    code, found, err = run_json(*_ARGV, label, "--text", text, "--mode", "lexical", "--json", *extra)
    assert code == 0, err
    return found  # type: ignore[no-any-return]


def _texts(found: dict[str, Any]) -> str:
    return "\n".join(r["text"] for r in found["results"])


def _feature_worktree(monorepo: Any, run_json: Any, tmp_path: Path) -> Path:
    wt = tmp_path / "wt-feature"
    monorepo.git("worktree", "add", "-q", "-b", "feature", str(wt))
    for label in ("main", "feature"):
        code, _, err = run_json("crawl", "--catalog", "acme", "--label", label, "--commit", "HEAD", "--json")
        assert code == 0, err
    text = (wt / RETRY).read_text().replace("fetchWithRetry", "fetchWithQuokkaRetry")
    (wt / RETRY).write_text(text)
    return wt


def _overlay_chunks() -> int:
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        return sum(
            s.store.count(filters.label_chunks(Held(o.current, o.current)))
            for o in overlaymeta.list_all(s.store)
        )


def test_each_worktree_sees_its_own_edits(monorepo, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wt = _feature_worktree(monorepo, run_json, tmp_path)
    mine = _search(run_json, "feature", "fetchWithQuokkaRetry", "--worktree", str(wt))
    assert mine["results"][0]["relative_path"] == RETRY and "fetchWithQuokkaRetry" in _texts(mine)
    assert mine["freshness"]["overlay"]["worktree"] == str(wt.resolve())
    # a subfolder of the worktree answers for the worktree
    sub = _search(run_json, "feature", "fetchWithQuokkaRetry", "--worktree", str(wt / "libraries"))
    assert "fetchWithQuokkaRetry" in _texts(sub)
    # the main checkout has no such edit: its search (over main) does not see the other's
    main = _search(run_json, "main", "fetchWithQuokkaRetry fetchWithRetry", "--worktree", str(monorepo.path))
    assert "fetchWithQuokkaRetry" not in _texts(main) and "fetchWithRetry(" in _texts(main)
    # a worktree of another label's branch is not laid over this label: said, not applied
    other = _search(run_json, "main", "fetchWithQuokkaRetry fetchWithRetry", "--worktree", str(wt))
    assert other["freshness"]["overlay"]["applied"] is False
    assert any("feature" in n for n in other["notes"]) and "fetchWithQuokkaRetry" not in _texts(other)


def test_a_removed_worktree_leaves_nothing_after_gc(monorepo, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wt = _feature_worktree(monorepo, run_json, tmp_path)
    assert "fetchWithQuokkaRetry" in _texts(
        _search(run_json, "feature", "fetchWithQuokkaRetry", "--worktree", str(wt))
    )
    assert _overlay_chunks() > 0
    code, report, err = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0 and report["overlays_dropped"] == {}, err  # still in use: kept
    monorepo.git("worktree", "remove", "--force", str(wt))
    code, report, err = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0, err
    assert report["overlays_dropped"] == {str(wt.resolve()): "worktree gone"}
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        assert overlaymeta.list_all(s.store) == []
        texts = [str(r.payload["text"]) for r in s.store.scroll(filters.chunks())]
        assert not any("fetchWithQuokkaRetry" in t for t in texts)


def test_an_overlay_whose_branch_changed_is_dropped(monorepo, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wt = _feature_worktree(monorepo, run_json, tmp_path)
    _search(run_json, "feature", "fetchWithQuokkaRetry", "--worktree", str(wt))
    monorepo.git("-C", str(wt), "checkout", "-q", "-b", "other")
    found = _search(run_json, "feature", "fetchWithQuokkaRetry fetchWithRetry", "--worktree", str(wt))
    assert found["freshness"]["overlay"]["applied"] is False
    assert "fetchWithQuokkaRetry" not in _texts(found)
    code, report, err = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0 and report["overlays_dropped"] == {str(wt.resolve()): "branch changed"}, err


def test_an_overlay_over_a_removed_label_is_dropped(monorepo, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    wt = _feature_worktree(monorepo, run_json, tmp_path)
    _search(run_json, "feature", "fetchWithQuokkaRetry", "--worktree", str(wt))
    assert run_json("labels", "rm", "--catalog", "acme", "--label", "feature", "--json")[0] == 0
    code, report, err = run_json("gc", "--catalog", "acme", "--json")
    assert code == 0 and report["overlays_dropped"] == {str(wt.resolve()): "label removed"}, err
    assert _overlay_chunks() == 0


def test_a_folder_outside_the_repository_is_a_clear_error(monorepo, run_json, tmp_path, git_repo) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    stranger = git_repo({"a.ts": "export const a = 1;\n"}, name="stranger")
    for folder in (stranger.path, tmp_path / "gone"):
        code, _, err = run_json(*_ARGV, "main", "--text", "a", "--worktree", str(folder), "--json")
        assert code == 2 and f"{folder} is not inside a checkout of a registered catalog" in err, err


def test_the_runner_answers_as_a_local_search(monorepo, run_json, tmp_path, start_runner) -> None:  # type: ignore[no-untyped-def]
    wt = _feature_worktree(monorepo, run_json, tmp_path)
    (wt / "libraries/net/src/fresh.ts").write_text("export const wombatTimeoutMs: number = 5000;\n")
    (wt / "libraries/terminal/src/colors.ts").unlink()
    query = (
        "feature",
        "fetchWithQuokkaRetry wombatTimeoutMs colorize",
        "--worktree",
        str(wt),
        "--limit",
        "10",
    )
    local = _search(run_json, *query)
    start_runner(1.0)
    remote = _search(run_json, *query)
    keys = ("relative_path", "file_id", "chunk_ordinal", "text")
    assert [[r[k] for k in keys] for r in remote["results"]] == [
        [r[k] for k in keys] for r in local["results"]
    ]
    paths_found = {r["relative_path"] for r in remote["results"]}
    assert {RETRY, "libraries/net/src/fresh.ts"} <= paths_found
    assert "libraries/terminal/src/colors.ts" not in paths_found
    assert remote["freshness"]["overlay"]["files"] == 2 and remote["freshness"]["overlay"]["paths"] == 3
    # the runner's fill job gives the overlay's chunks their vectors (the local search was lexical)
    deadline = time.monotonic() + 120
    while _search(run_json, *query)["freshness"]["overlay"]["dense_pending"]:
        assert time.monotonic() < deadline, "the fill job never filled the overlay's chunks"
        time.sleep(0.5)
