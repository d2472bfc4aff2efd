"""Issue 21, item 1: `search`, `view` and `crawl` answer for where you stand (the repository,
linked worktree and branch of the current directory): flags > where you stand > `monodex use`."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from monodex.disk import paths
from monodex.labels import standing
from monodex.main import main

SRC = {
    "package.json": json.dumps({"name": "root"}),
    "libraries/net/package.json": json.dumps({"name": "@acme/net"}),
    "libraries/net/src/retry.ts": (
        "/** Retries an HTTP request with exponential backoff. */\n"
        "export async function fetchWithRetry(url: string): Promise<Response> {\n"
        "  return fetch(url);\n}\n"
    ),
    "libraries/term/package.json": json.dumps({"name": "@acme/term"}),
    "libraries/term/src/colors.ts": (
        "/** Wraps text in ANSI escape codes so a terminal prints it in color. */\n"
        "export function colorize(text: string): string {\n  return text;\n}\n"
    ),
}
PARSER_TS = (
    "/** Parses a YAML manifest of a rocket launch into a flight plan. */\n"
    "export function parseLaunchManifest(yaml: string): string[] {\n  return yaml.split('\\n');\n}\n"
)
QUESTION = "parse the rocket launch manifest"


def git(where: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=where, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def indexed(crawl_files):  # type: ignore[no-untyped-def]
    """Catalog `acme` with `main` crawled and set as the `monodex use` default."""
    repo = crawl_files(SRC)
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    return repo


@pytest.fixture
def worktree(indexed, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    """A linked worktree on a new branch `feature-x` (no glob tracks it) with a new file
    committed there: its label does not exist yet."""
    wt = tmp_path / "wt-feature"
    indexed.git("worktree", "add", "-q", str(wt), "-b", "feature-x")
    (wt / "libraries/net/src/parser.ts").write_text(PARSER_TS)
    git(wt, "add", "-A")
    git(wt, "commit", "-qm", "a parser on the feature branch")
    return wt


def _paths(answer: dict) -> list[str]:  # type: ignore[type-arg]
    return [r["relative_path"] for r in answer["results"]]


def test_standing_maps_every_checkout_and_subfolder_to_its_catalog(indexed, worktree, tmp_path) -> None:  # type: ignore[no-untyped-def]
    catalogs = {"acme": indexed.path}
    main_here = standing.find(indexed.path / "libraries" / "net", catalogs)
    assert main_here is not None
    assert (main_here.catalog, main_here.worktree, main_here.branch) == ("acme", indexed.path, "main")
    wt_here = standing.find(worktree / "libraries", catalogs)
    assert wt_here is not None
    assert (wt_here.catalog, wt_here.worktree, wt_here.branch) == ("acme", worktree.resolve(), "feature-x")
    assert wt_here.commit == git(worktree, "rev-parse", "HEAD")
    git(worktree, "checkout", "-q", "--detach")
    detached = standing.find(worktree, catalogs)
    assert detached is not None and detached.branch is None and detached.detached
    assert detached.label() == "commit/" + detached.commit[:12]  # type: ignore[index]
    assert standing.find(tmp_path, catalogs) is None  # not a checkout
    assert standing.find(worktree, {"other": tmp_path}) is None  # not a registered catalog


def test_search_in_a_worktree_answers_for_its_branch_indexed_on_demand(
    worktree, run_json, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Before: a plain search answered from `main` (the `use` default) and never saw the branch."""
    monkeypatch.chdir(worktree / "libraries")
    code, answer, err = run_json("search", "--text", QUESTION, "--json")
    assert code == 0, err
    assert "libraries/net/src/parser.ts" in _paths(answer)
    f = answer["freshness"]
    head = git(worktree, "rev-parse", "HEAD")
    assert (f["worktree"], f["branch"], f["commit"]) == (str(worktree.resolve()), "feature-x", head)
    assert f["fresh"] is True and f["indexed_commit"] == head  # the existing keys stay
    assert answer["on_demand"]["label"] == "feature-x" and answer["on_demand"]["commit"] == head
    # phase one reused every unchanged file: only the new one was stored
    # (reused: two .ts files, README.md and the package.json files the built-in policy indexes)
    assert (answer["on_demand"]["files_stored"], answer["on_demand"]["files_reused"]) == (1, 5)
    assert any("indexed on demand from branch feature-x" in n for n in answer["notes"])
    # a second search reuses the label: nothing more on demand
    code, again, _ = run_json("search", "--text", QUESTION, "--json")
    assert code == 0 and "on_demand" not in again
    code, text, _ = run_json("search", "--text", QUESTION)
    assert f"# worktree {worktree.resolve()} (branch feature-x): index at {head[:12]}, fresh" in text


def test_explicit_flags_win_and_use_is_the_last_default(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(worktree)
    code, answer, err = run_json("search", "--label", "main", "--text", QUESTION, "--json")
    assert code == 0, err
    assert "libraries/net/src/parser.ts" not in _paths(answer)
    assert answer["freshness"]["worktree"] is None and answer["freshness"]["branch"] == "main"
    monkeypatch.chdir(worktree.parent)  # outside every checkout: `monodex use`
    code, answer, err = run_json("search", "--text", QUESTION, "--json")
    assert code == 0, err
    assert answer["freshness"]["branch"] == "main" and answer["freshness"]["worktree"] is None


def test_branch_head_is_the_checked_out_branch(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Before: --branch HEAD looked for a label named `head`."""
    monkeypatch.chdir(worktree)
    code, answer, err = run_json("search", "--branch", "HEAD", "--text", QUESTION, "--json")
    assert code == 0, err
    assert answer["freshness"]["branch"] == "feature-x"
    monkeypatch.chdir(worktree.parent)
    code, _, err = run_json("search", "--branch", "HEAD", "--text", QUESTION, "--json")
    assert code == 2 and "--branch HEAD" in err


def test_fresh_indexes_an_untracked_branch_instead_of_failing(indexed, run_json) -> None:  # type: ignore[no-untyped-def]
    """Before: `search --branch topic-a --fresh` said the label does not exist."""
    indexed.git("checkout", "-q", "-b", "topic-a")
    indexed.write("libraries/net/src/parser.ts", PARSER_TS)
    head = indexed.commit("topic work")
    indexed.git("checkout", "-q", "main")
    code, answer, err = run_json(
        "search", "--catalog", "acme", "--branch", "topic-a", "--fresh", "--text", QUESTION, "--json"
    )
    assert code == 0, err
    assert "libraries/net/src/parser.ts" in _paths(answer)
    assert answer["freshness"]["commit"] == head and answer["on_demand"]["label"] == "topic-a"


def test_a_detached_head_answers_for_its_commit_with_a_note(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    head = git(worktree, "rev-parse", "HEAD")
    git(worktree, "checkout", "-q", "--detach")
    monkeypatch.chdir(worktree)
    code, answer, err = run_json("search", "--text", QUESTION, "--json")
    assert code == 0, err
    assert "libraries/net/src/parser.ts" in _paths(answer)
    f = answer["freshness"]
    assert f["commit"] == head and f["branch"] is None and f["worktree"] == str(worktree.resolve())
    assert answer["on_demand"]["label"] == f"commit/{head[:12]}"
    assert any(n.startswith(f"detached HEAD at {head[:12]}") for n in answer["notes"])
    code, text, _ = run_json("search", "--text", QUESTION)
    assert "(detached HEAD): index at" in text
    labels = {r["label"]: r for r in run_json("status", "--json")[1]["labels"]}
    assert labels[f"commit/{head[:12]}"]["freshness"] == "commit (detached HEAD)"


def test_view_defaults_to_where_you_stand(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(worktree)
    assert run_json("search", "--text", QUESTION, "--json")[0] == 0  # indexes feature-x
    code, answer, err = run_json("view", "--path", "libraries/net/src/parser.ts", "--json")
    assert code == 0, err
    assert "parseLaunchManifest" in answer["chunks"][0]["text"]


def test_crawl_in_a_worktree_reads_that_worktree(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Before: `crawl --working-dir` (and --commit HEAD) inside a worktree read the main checkout."""
    (worktree / "libraries/term/src/draft.ts").write_text("export const draftOnly = 1;\n")
    monkeypatch.chdir(worktree)
    code, out, err = run_json("crawl", "--label", "wip", "--working-dir", "--json")
    assert code == 0, err
    code, answer, err = run_json("view", "--label", "wip", "--path", "libraries/term/src/draft.ts", "--json")
    assert code == 0, err
    code, out, err = run_json("crawl", "--commit", "HEAD", "--json")
    assert code == 0, err
    assert (out["label"], out["commit"]) == ("feature-x", git(worktree, "rev-parse", "HEAD"))


def test_a_working_dir_crawl_never_takes_the_branch_label(worktree, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Uncommitted files go to a label named for them (--label, or `monodex use`), never to the
    label of the branch checked out where you stand."""
    monkeypatch.chdir(worktree)
    assert main(["use", "--catalog", "acme", "--label", "wip"]) == 0
    code, out, err = run_json("crawl", "--working-dir", "--json")
    assert code == 0, err
    assert out["label"] == "wip"


def test_status_lists_every_worktree_and_a_removed_one_leaves_nothing(
    indexed, worktree, run_json, monkeypatch, isolated_env
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(worktree)
    code, st, err = run_json("status", "--json")
    assert code == 0, err
    rows = {w["path"]: w for w in st["worktrees"]}
    assert rows[str(indexed.path)] == {
        "catalog": "acme",
        "path": str(indexed.path),
        "branch": "main",
        "head": indexed.head(),
        "label": "main",
        "freshness": "fresh",
        "here": False,
    }
    mine = rows[str(worktree.resolve())]
    assert (mine["branch"], mine["label"], mine["here"]) == ("feature-x", "feature-x", True)
    assert mine["freshness"].startswith("not indexed")
    assert run_json("search", "--text", QUESTION, "--json")[0] == 0  # indexes feature-x on demand
    code, text, _ = run_json("status")
    assert (
        f"worktree acme {worktree.resolve()} (you are here)\tbranch feature-x\tlabel feature-x\tfresh" in text
    )
    monkeypatch.chdir(indexed.path)
    indexed.git("worktree", "remove", "--force", str(worktree))
    assert run_json("gc", "--catalog", "acme", "--json")[0] == 0
    code, st, _ = run_json("status", "--json")
    assert [w["path"] for w in st["worktrees"]] == [str(indexed.path)]
    # nothing monodex keeps names the removed worktree (its branch's label follows branch rules)
    for folder in ("config", "data", "state", "run"):
        for f in (isolated_env / folder).rglob("*"):
            if f.is_file() and f.suffix in (".json", ".log", ".txt", ""):
                assert str(worktree) not in f.read_text(errors="replace"), f


def test_with_the_runner_up_the_runner_indexes_it_and_hooks_then_track_it(
    worktree, run_json, monkeypatch, start_runner
) -> None:  # type: ignore[no-untyped-def]
    """The on-demand refresh goes through the runner's spool like a hook's (it owns the shard);
    once the label exists, the hooks refresh it on every commit in the worktree."""
    indexed_path = Path(git(worktree, "rev-parse", "--path-format=absolute", "--git-common-dir")).parent
    assert main(["hooks", "install", "--repo", str(indexed_path)]) == 0
    start_runner(0.3)
    monkeypatch.chdir(worktree)
    code, answer, err = run_json("search", "--text", QUESTION, "--json")
    assert code == 0, err
    assert answer["on_demand"]["label"] == "feature-x" and "libraries/net/src/parser.ts" in _paths(answer)
    (worktree / "libraries/term/src/launch.ts").write_text("export const countdownSequence = 10;\n")
    git(worktree, "add", "-A")
    git(worktree, "commit", "-qm", "countdown")
    log = paths.resolve().log_dir / "hooks.log"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and '"label": "acme:feature-x"' not in _read(log):
        time.sleep(0.05)
    assert '"label": "acme:feature-x"' in _read(log)  # the hook queued it: tracked from now on
    code, answer, err = run_json("search", "--text", "countdownSequence", "--fresh", "20", "--json")
    assert code == 0, err
    assert answer["freshness"]["fresh"] is True and "on_demand" not in answer
    assert answer["freshness"]["commit"] == git(worktree, "rev-parse", "HEAD")


def _read(file: Path) -> str:
    return file.read_text() if file.exists() else ""


def test_worktree_flag_must_name_a_checkout_of_a_catalog(worktree, run_json, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, answer, err = run_json("search", "--worktree", str(worktree), "--text", QUESTION, "--json")
    assert code == 0, err
    assert answer["freshness"]["worktree"] == str(worktree.resolve())
    code, _, err = run_json("search", "--worktree", str(tmp_path), "--text", QUESTION, "--json")
    assert code == 2 and "not inside a checkout of a registered catalog" in err
    from monodex import requests as rq

    with pytest.raises(rq.FieldError, match="absolute path"):
        rq.SearchRequest("acme", "main", "q", worktree="relative/wt")
