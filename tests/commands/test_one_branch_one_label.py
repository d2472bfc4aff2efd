"""One branch, one label (issue 35, item 1), from the fault probe's reproduction.

Before: `feature/Walk_One` and `feature/walk-one` both mapped to `feature/walk-one`; the label
flipped between their commits (a hook, then the refs check) and a search standing on one
answered from the other saying `fresh: true`. A branch named `commit/<sha>` took over the
detached-HEAD label of that commit."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
from monodex.indexer.ops import background
from monodex.scheduler import jobs

from monodex.disk import paths
from monodex.main import main
from monodex.runner import spool

BASE = {"src/base.ts": "export const base = 'shared by every branch';\n"}
UPPER = "export function upperWalk(): string {\n  return 'zebra crossing on the upper walk';\n}\n"
LOWER = "export function lowerWalk(): string {\n  return 'zebra crossing on the lower walk';\n}\n"
QUESTION = "zebra crossing walk"


def _drain(open_session) -> jobs.DrainReport:
    with open_session() as s:
        return jobs.drain(spool.default(paths.resolve().state_dir), lambda r: background.refresh_label(s, r))


def _poll(open_session) -> dict:  # type: ignore[type-arg]
    with open_session() as s:
        return background.poll_branches(s, spool.default(paths.resolve().state_dir), now=1000.0)


def _track(glob: str) -> None:
    cfg = json.loads(paths.resolve().config_file.read_text())
    cfg["catalogs"]["acme"]["track"] = [glob]
    paths.resolve().config_file.write_text(json.dumps(cfg))


def _git(where: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=where, capture_output=True, text=True, check=True
    ).stdout.strip()


def _worktree(repo, tmp_path: Path, branch: str, rel: str, text: str) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    """A linked worktree on a new branch from main, with one file committed there."""
    wt = tmp_path / branch.replace("/", "-")
    repo.git("worktree", "add", "-q", str(wt), "-b", branch, "main")
    (wt / rel).write_text(text)
    _git(wt, "add", "-A")
    _git(wt, "commit", "-qm", f"work on {branch}")
    return wt, _git(wt, "rev-parse", "HEAD")


def _hook_entries(commit: str) -> list[spool.Request]:
    """The spool's entries once one for `commit` has landed (bounded wait)."""
    deadline = time.monotonic() + 20
    while True:
        found = [spool.parse(p.read_bytes()) for p in spool.default(paths.resolve().state_dir).pending()]
        if any(e.commit == commit for e in found) or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _search_from(run_json, monkeypatch, where: Path) -> dict:  # type: ignore[no-untyped-def,type-arg]
    monkeypatch.chdir(where)
    code, answer, err = run_json("search", "--text", QUESTION, "--json")
    assert code == 0, err
    return answer  # type: ignore[no-any-return]


def _paths(answer: dict) -> set[str]:  # type: ignore[type-arg]
    return {r["relative_path"] for r in answer["results"]}


@pytest.fixture
def repo(crawl_files):  # type: ignore[no-untyped-def]
    return crawl_files(BASE)


def _each_answers_its_own(
    run_json, monkeypatch, upper: tuple[Path, str], lower: tuple[Path, str]
) -> set[str]:  # type: ignore[no-untyped-def]
    """A search standing on each branch answers from that branch's commit; the labels used."""
    used = set()
    for (wt, head), own, other in (
        (upper, "src/upper.ts", "src/lower.ts"),
        (lower, "src/lower.ts", "src/upper.ts"),
    ):
        answer = _search_from(run_json, monkeypatch, wt)
        f = answer["freshness"]
        assert own in _paths(answer) and other not in _paths(answer)
        assert f["fresh"] is True and f["commit"] == head
        used.add(f["label"])
    return used


def test_two_branches_that_map_alike_get_two_labels_through_the_hooks(
    repo, run_json, monkeypatch, tmp_path, open_session
) -> None:  # type: ignore[no-untyped-def]
    assert main(["hooks", "install", "--repo", str(repo.path)]) == 0
    _track("feature/*")
    upper = _worktree(repo, tmp_path, "feature/Walk_One", "src/upper.ts", UPPER)
    _hook_entries(upper[1])  # hooks write in the background: one after the other, as people commit
    lower = _worktree(repo, tmp_path, "feature/walk-one", "src/lower.ts", LOWER)
    queued = {e.label: e.ref for e in _hook_entries(lower[1])}
    assert len(queued) == 2, queued
    # the first one given a label keeps the plain one: the name alone keeps today's label
    assert queued["feature/walk-one"] == "refs/heads/feature/Walk_One"
    [hashed] = set(queued) - {"feature/walk-one"}
    assert hashed.startswith("feature/walk-one-") and queued[hashed] == "refs/heads/feature/walk-one"
    assert not _drain(open_session).failed
    assert _poll(open_session)["queued"] == []  # the refs check agrees with the hooks: nothing flips
    assert _each_answers_its_own(run_json, monkeypatch, upper, lower) == {"feature/walk-one", hashed}
    # and it survives: a commit on each queues each own label again
    for (wt, _), rel in ((upper, "src/upper.ts"), (lower, "src/lower.ts")):
        (wt / rel).write_text((wt / rel).read_text() + "// more\n")
        _git(wt, "commit", "-qam", "more")
        _hook_entries(_git(wt, "rev-parse", "HEAD"))
    assert not _drain(open_session).failed
    assert _poll(open_session)["queued"] == []
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_json("labels", "--json")
    rows = {r["label"]: r for r in out["labels"]}
    assert rows["feature/walk-one"]["branch"] == "feature/Walk_One"
    assert rows[hashed]["branch"] == "feature/walk-one"
    code, text, _ = run_json(
        "search", "--catalog", "acme", "--branch", "feature/walk-one", "--text", QUESTION
    )
    assert f"fresh with branch feature/walk-one (label {hashed})" in text
    code, out, _ = run_json("verify", "--catalog", "acme", "--branch", "feature/walk-one", "--json")
    assert code == 0 and [r["label"] for r in out["labels"]] == [hashed]
    code, st, _ = run_json("status", "--json")
    branches = {r["label"]: r["branch"] for r in st["labels"]}
    assert branches["feature/walk-one"] == "feature/Walk_One" and branches[hashed] == "feature/walk-one"
    assert all(r["freshness"] == "fresh" for r in st["labels"])


def test_two_branches_that_map_alike_get_two_labels_through_the_refs_check(
    repo, run_json, monkeypatch, tmp_path, open_session
) -> None:  # type: ignore[no-untyped-def]
    """No hook at all: the branches were made and committed to with hooks absent."""
    _track("feat/*")
    upper = _worktree(repo, tmp_path, "feat/Foo_Bar", "src/upper.ts", UPPER)
    lower = _worktree(repo, tmp_path, "feat/foo-bar", "src/lower.ts", LOWER)
    created = _poll(open_session)["created"]
    assert len(created) == 2 and "acme:feat/foo-bar" in created  # spelled like the label: keeps it
    assert not _drain(open_session).failed
    again = _poll(open_session)
    assert again["queued"] == [] and again["created"] == []
    used = _each_answers_its_own(run_json, monkeypatch, upper, lower)
    assert used == {c.removeprefix("acme:") for c in created}


def test_a_branch_named_like_a_detached_head_label_never_takes_it(
    repo, run_json, monkeypatch, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    old = repo.head()
    repo.write("src/upper.ts", UPPER)
    repo.commit("upper")
    name = f"commit/{old[:12]}"
    branch_wt, _ = _worktree(repo, tmp_path, name, "src/lower.ts", LOWER)  # code `old` never had
    on_branch = _search_from(run_json, monkeypatch, branch_wt)
    label = on_branch["on_demand"]["label"]
    assert label != name and label.startswith(name + "-") and "src/lower.ts" in _paths(on_branch)
    detached = tmp_path / "detached"
    repo.git("worktree", "add", "-q", "--detach", str(detached), old)
    answer = _search_from(run_json, monkeypatch, detached)
    assert answer["freshness"]["commit"] == old and answer["freshness"]["label"] == name
    assert not {"src/lower.ts", "src/upper.ts"} & _paths(answer)  # only what `old` holds
