"""Incremental refresh is equivalent to a full crawl: random histories in real repositories,
refreshed step by step, compared at every step with a fresh full crawl in another collection;
and refreshes interrupted at random writes converge on the next run."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from monodex.indexer import session
from monodex.indexer.points import labelmeta
from monodex.indexer.session import Session
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.write import crawlrun

from monodex.disk import paths
from monodex.errors import MonodexError
from monodex.settings import config
from monodex.settings.config import Catalog
from tests.conftest import label_filter

WORDS = ["parse", "render", "fetch", "retry", "color", "token", "graph", "cache", "merge", "watch"]


def _ts(rng: random.Random, n: int) -> str:
    out = []
    for i in range(n):
        w = rng.choice(WORDS)
        out.append(
            f"/** {w.title()} step {i}. */\nexport function {w}{i}(input: string): string {{\n"
            f"  return input.replace('{rng.randint(0, 99)}', '{w}');\n}}\n"
        )
    return "\n".join(out)


class History:
    """Random edits of a small Rush-like repository: one commit per step."""

    PACKAGES = ["libs/alpha", "libs/beta", "apps/tool"]

    def __init__(self, repo: Any, seed: int) -> None:
        self.repo, self.rng = repo, random.Random(seed)
        for pkg in self.PACKAGES:
            repo.write(f"{pkg}/package.json", json.dumps({"name": f"@acme/{pkg.split('/')[1]}"}))
            for i in range(2):
                repo.write(f"{pkg}/src/f{i}.ts", _ts(self.rng, 2))
        repo.write("README.md", "# Acme\n\nThe monorepo.\n\n## Build\n\nRun rush build.\n")
        repo.write("docs/notes.txt", "notes\n" * 5)
        self.counter = 10

    def files(self) -> list[str]:
        out = self.repo.git("ls-files").splitlines()
        return [f for f in out if not f.endswith("package.json")]

    def step(self) -> str:
        ops = [self.add, self.edit, self.edit, self.delete, self.rename, self.copy, self.package, self.policy]
        done = []
        for op in self.rng.sample(ops, self.rng.randint(1, 3)):
            done.append(op())
        return self.repo.commit(", ".join(d for d in done if d))

    def _new_path(self) -> str:
        self.counter += 1
        return f"{self.rng.choice(self.PACKAGES)}/src/n{self.counter}.ts"

    def add(self) -> str:
        self.repo.write(self._new_path(), _ts(self.rng, self.rng.randint(1, 3)))
        return "add"

    def edit(self) -> str:
        f = self.rng.choice(self.files())
        text = (self.repo.path / f).read_text()
        self.repo.write(f, text + "\n" + (_ts(self.rng, 1) if f.endswith(".ts") else "more\n"))
        return "edit"

    def delete(self) -> str:
        files = self.files()
        if len(files) > 3:
            self.repo.git("rm", "-q", "-f", self.rng.choice(files))
        return "delete"

    def rename(self) -> str:
        f = self.rng.choice(self.files())
        dest = self._new_path()  # bumps the counter: never the same path
        dest = dest if f.endswith(".ts") else f"docs/moved{self.counter}.txt"
        (self.repo.path / dest).parent.mkdir(parents=True, exist_ok=True)
        self.repo.git("mv", f, dest)
        return "rename"

    def copy(self) -> str:  # identical content at two paths
        f = self.rng.choice([x for x in self.files() if x.endswith(".ts")] or self.files())
        self.repo.write(self._new_path(), (self.repo.path / f).read_bytes())
        return "copy"

    def package(self) -> str:
        pkg = self.rng.choice(self.PACKAGES)
        manifest = self.repo.path / pkg / "package.json"
        choice = self.rng.choice(["rename", "remove", "nested", "bump"])
        if not manifest.exists():
            self.repo.write(f"{pkg}/package.json", json.dumps({"name": f"@acme/{pkg}-back"}))
        elif choice == "rename":
            self.repo.write(f"{pkg}/package.json", json.dumps({"name": f"@acme/renamed{self.counter}"}))
            self.counter += 1
        elif choice == "bump":  # the name stays: nothing below it changes package
            doc = json.loads(manifest.read_text())
            doc["version"] = f"1.{self.counter}.0"
            self.counter += 1
            self.repo.write(f"{pkg}/package.json", json.dumps(doc))
        elif choice == "remove":
            self.repo.git("rm", "-q", "-f", f"{pkg}/package.json")
        else:
            self.repo.write(f"{pkg}/src/package.json", json.dumps({"name": f"@acme/inner{self.counter}"}))
            self.counter += 1
        return f"package {choice}"

    def policy(self) -> str:  # files entering and leaving the crawl policy
        ts = [f for f in self.files() if f.endswith(".ts") and "/lib/" not in f]
        hidden = [f for f in self.files() if "/lib/" in f or f.endswith(".js")]
        if hidden and self.rng.random() < 0.5:
            f = self.rng.choice(hidden)
            self.repo.git("mv", f, self._new_path())
        elif ts:
            f = self.rng.choice(ts)
            dest = f.replace("/src/", "/lib/") if self.rng.random() < 0.5 else f[:-3] + ".js"
            (self.repo.path / dest).parent.mkdir(parents=True, exist_ok=True)
            self.repo.git("mv", f, dest)
        return "policy"


IGNORED = {"updated_at_unix_secs", "active_label_ids"}  # which base keys a chunk carries is history


def label_state(store: Any, label_id: str) -> dict[str, dict[str, Any]]:
    return {
        r.id: {k: v for k, v in r.payload.items() if k not in IGNORED}
        for r in store.scroll(label_filter(store, label_id))
    }


@pytest.fixture(scope="module")
def engine() -> Any:
    return session.engine(config.Config())


@pytest.fixture
def setup(git_repo, engine, tmp_path):  # type: ignore[no-untyped-def]
    repo = git_repo({}, name="acme")
    p = paths.resolve()
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})
    live = EdgeStore(tmp_path / "live", "monodex")
    refs: list[EdgeStore] = []

    def refresh(commit: str, store: Any = None, *, full: bool = False) -> dict[str, Any]:
        s = Session(cfg, p, store=store or live, engine=engine)
        return crawlrun.crawl(s, crawlrun.Request(cat, "main", commit, full=full)).as_json()

    def reference(commit: str) -> dict[str, dict[str, Any]]:
        ref = EdgeStore(tmp_path / "ref", f"c{len(refs)}")
        refs.append(ref)
        refresh(commit, ref, full=True)
        state = label_state(ref, "acme:main")
        ref.close()
        return state

    yield repo, live, refresh, reference
    live.close()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_incremental_refresh_matches_a_fresh_full_crawl_at_every_step(setup, seed: int) -> None:  # type: ignore[no-untyped-def]
    repo, live, refresh, reference = setup
    history = History(repo, seed)
    first = refresh(repo.commit("initial"))
    assert first["mode"] == "full"
    modes = []
    for _ in range(7):
        sha = history.step()
        summary = refresh(sha)
        modes.append(summary["mode"])
        assert label_state(live, "acme:main") == reference(sha), repo.git("log", "-1", "--format=%s")
        meta = labelmeta.read(live, "acme:main")
        assert meta is not None and meta.commit_oid == sha and meta.crawl_complete
        assert summary["files_total"] == len({p["file_id"] for p in label_state(live, "acme:main").values()})
    assert set(modes) == {"incremental"}


class Flaky:
    """The real store; the Nth write (upsert, set_payload or delete) raises."""

    def __init__(self, inner: Any, fail_at: int) -> None:
        self.inner, self.fail_at, self.writes = inner, fail_at, 0

    def _write(self, name: str, *args: Any, **kw: Any) -> Any:
        self.writes += 1
        if self.writes == self.fail_at:
            raise MonodexError(f"injected failure at write {self.writes} ({name})")
        return getattr(self.inner, name)(*args, **kw)

    def upsert(self, *a: Any, **k: Any) -> Any:
        return self._write("upsert", *a, **k)

    def set_payload(self, *a: Any, **k: Any) -> Any:
        return self._write("set_payload", *a, **k)

    def delete(self, *a: Any, **k: Any) -> Any:
        return self._write("delete", *a, **k)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.mark.parametrize("seed", [11, 12])
def test_interrupted_refreshes_converge_on_the_next_run(setup, seed: int) -> None:  # type: ignore[no-untyped-def]
    repo, live, refresh, reference = setup
    history = History(repo, seed)
    rng = random.Random(seed)
    refresh(repo.commit("initial"))
    interrupted = 0
    for _ in range(8):
        sha = history.step()
        if rng.random() < 0.7:
            flaky = Flaky(live, fail_at=rng.randint(1, 5))
            try:
                refresh(sha, flaky)
            except MonodexError:
                interrupted += 1
                meta = labelmeta.read(live, "acme:main")
                assert meta is not None and not (meta.crawl_complete and meta.commit_oid == sha)
                if rng.random() < 0.5:
                    continue  # the next commit arrives before any retry: that run must finish both
        summary = refresh(sha)
        assert label_state(live, "acme:main") == reference(sha)
        assert summary["mode"] in {"incremental", "derived", "full"}
    assert interrupted >= 1  # the injection really happened


def test_doubt_means_no_refresh_from_the_labels_own_commit(setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, live, refresh, reference = setup
    history = History(repo, 5)
    base = repo.commit("initial")
    assert refresh(base)["mode"] == "full"
    assert refresh(history.step())["mode"] == "incremental"
    repo.git("checkout", "-q", "--orphan", "other")  # a label moved to an unrelated branch
    repo.write("libs/alpha/src/only.ts", _ts(random.Random(1), 2))
    unrelated = repo.commit("unrelated root")
    # derived from the nearest base built the same way (members/derive.py), never diffed from
    # a commit that is not its ancestor
    assert refresh(unrelated)["mode"] == "derived"
    assert label_state(live, "acme:main") == reference(unrelated)
    (repo.path / "monodex-crawl.json").write_text(
        json.dumps(
            {"version": 1, "fileTypes": {".ts": "typescript"}, "patternsToExclude": [], "patternsToKeep": []}
        )
    )
    history.step()
    # another crawl policy is followed file by file (write/policychange.py) ...
    sha = repo.commit("policy changed")
    assert refresh(sha)["mode"] == "incremental"
    assert label_state(live, "acme:main") == reference(sha)
    # ... unless it changes what cannot be told without reading every file again
    policy = json.loads((repo.path / "monodex-crawl.json").read_text())
    (repo.path / "monodex-crawl.json").write_text(json.dumps({**policy, "maxFileBytes": 4096}))
    assert refresh(repo.commit("size limit changed"))["mode"] == "full"


def test_a_one_function_edit_runs_the_model_on_the_changed_chunks_only(setup) -> None:  # type: ignore[no-untyped-def]
    repo, live, refresh, reference = setup
    body = [
        f"/** Transform number {i} of the pipeline. */\nexport function transform{i}(input: string): string {{\n"
        + "".join(f"  const part{j} = input.slice({j}, {j + i + 1}).trim();\n" for j in range(12))
        + f"  return part0 + part{i % 12};\n}}\n"
        for i in range(20)
    ]
    repo.write("libs/alpha/src/transforms.ts", "\n".join(body))
    first = refresh(repo.commit("twenty functions"))
    assert first["chunks_embedded"] >= 20 and first["chunks_reused"] == 0
    body[7] = body[7].replace("return part0", "return part1 + part0")
    repo.write("libs/alpha/src/transforms.ts", "\n".join(body))
    sha = repo.commit("edit one function")
    summary = refresh(sha)
    assert summary["mode"] == "incremental" and summary["files_embedded"] == 1
    assert 1 <= summary["chunks_embedded"] <= 2 and summary["chunks_reused"] >= first["chunks_embedded"] - 2
    assert label_state(live, "acme:main") == reference(sha)


def test_working_dir_labels_refresh_only_the_edited_files(setup, engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, live, _, _ = setup
    History(repo, 7)
    repo.commit("initial")
    p = paths.resolve()
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})

    def crawl_wd(store: Any, *, full: bool = False) -> dict[str, Any]:
        s = Session(cfg, p, store=store, engine=engine)
        return crawlrun.crawl(s, crawlrun.Request(cat, "wip", None, working_dir=True, full=full)).as_json()

    assert crawl_wd(live)["mode"] == "full"
    repo.write("libs/alpha/src/f0.ts", _ts(random.Random(99), 2))  # two edits
    repo.write("libs/beta/src/f1.ts", _ts(random.Random(98), 1))
    repo.write("libs/beta/src/new.ts", _ts(random.Random(97), 1))  # one new file
    (repo.path / "docs/notes.txt").unlink()  # one deleted
    summary = crawl_wd(live)
    assert (
        summary["mode"] == "incremental" and summary["files_embedded"] == 3 and summary["files_removed"] == 3
    )  # old versions too
    ref = EdgeStore(tmp_path / "wd-ref", "monodex")
    crawl_wd(ref, full=True)
    assert label_state(live, "acme:wip") == label_state(ref, "acme:wip")
    ref.close()
    again = crawl_wd(live)  # nothing changed: nothing read from the model, nothing stored
    assert again["mode"] == "incremental" and again["files_embedded"] == again["files_removed"] == 0


def test_the_stat_cache_rehashes_only_changed_files(git_repo) -> None:  # type: ignore[no-untyped-def]
    import os

    from monodex.indexer.git import worktree

    repo = git_repo({f"src/f{i}.ts": f"export const v{i} = {i};\n" for i in range(5)}, name="acme")
    old = 1_600_000_000
    for f in (repo.path / "src").iterdir():
        os.utime(f, (old, old))
    cache: worktree.StatCache = {}
    first = worktree.scan(repo.path, lambda p: p.endswith(".ts"), max_bytes=lambda _: 1 << 20, cache=cache)
    assert first.hashed == 5
    again = worktree.scan(repo.path, lambda p: p.endswith(".ts"), max_bytes=lambda _: 1 << 20, cache=cache)
    assert again.hashed == 0 and {e.blob_id for e in again.entries} == {e.blob_id for e in first.entries}
    repo.write("src/f2.ts", "export const v2 = 'changed';\n")
    third = worktree.scan(repo.path, lambda p: p.endswith(".ts"), max_bytes=lambda _: 1 << 20, cache=cache)
    assert third.hashed == 1  # the edited file, and only it (its mtime is new: never trusted)
