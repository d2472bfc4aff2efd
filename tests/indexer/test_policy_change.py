"""An index built before issue 23 (the original's built-in policy, three chunkers, no policy
recorded) gains the new files at its next refresh: incremental, only the files the new policy
adds are embedded, every TypeScript file keeps its chunks, and the label ends exactly as a fresh
full crawl makes it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from monodex.indexer import chunkers, session
from monodex.indexer.points import identity, labelmeta
from monodex.indexer.policy import crawlpolicy
from monodex.indexer.session import Session
from monodex.indexer.store.edge import EdgeStore
from monodex.indexer.write import crawlrun

from monodex import config, paths
from monodex.config import Catalog
from tests.indexer.test_incremental import label_state

FILES: dict[str, str | bytes] = {
    "package.json": '{"name": "acme"}',
    "rush.json": '{"projects": [{"packageName": "@acme/core", "projectFolder": "libs/core"}]}\n',
    "libs/core/package.json": '{"name": "@acme/core"}',
    "libs/core/src/index.ts": "export function parseConfig(path: string): string {\n  return path;\n}\n",
    "libs/core/src/util.ts": "export const MAX_BYTES = 1;\n",
    "libs/core/README.md": "# core\n\nParses the config.\n",
    "libs/core/scripts/build.js": "module.exports = function build() {\n  return 1;\n};\n",
    "crates/native/Cargo.toml": '[package]\nname = "acme-native"\n',
    "crates/native/src/lib.rs": "pub fn parse_config() -> u32 {\n    1\n}\n",
    "crates/native/target/debug/gen.rs": "// build output\n",
    "Cargo.lock": "# lock\n",
}
NEW = {"package.json", "rush.json", "libs/core/package.json", "libs/core/scripts/build.js"}
NEW |= {"crates/native/Cargo.toml", "crates/native/src/lib.rs"}


@pytest.fixture(scope="module")
def engine() -> Any:
    return session.engine(config.Config())


def _as_before_issue_23(store: EdgeStore, engine: Any) -> None:
    """What an index crawled before this change recorded: no policy text, three chunkers."""
    state = labelmeta.read(store, "acme:main")
    assert state is not None
    ids = [engine.chunker_id(name) for name in ("lineBased", "markdown", "typescript")]
    extra = {k: v for k, v in state.extra.items() if k != "policy"}
    extra["implementation"] = ";".join([engine.embedder_id, *ids, identity.SCHEME])
    labelmeta.write(
        store,
        catalog="acme",
        label="main",
        dim=engine.dim,
        commit_oid=state.commit_oid,
        source_kind=state.source_kind,
        complete=True,
        now=0,
        extra=extra,
    )


def test_an_index_built_with_the_old_policy_embeds_only_the_new_files(git_repo, engine, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES, name="acme")
    p = paths.resolve()
    p.config_dir.mkdir(parents=True, exist_ok=True)
    p.user_crawl_file.write_text(json.dumps(crawlpolicy.BUILTIN_V1))
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})
    live = EdgeStore(tmp_path / "live", "monodex")

    def crawl(store: EdgeStore, commit: str, **kw: Any) -> dict[str, Any]:
        with Session(cfg, p, store=store, engine=engine) as s:
            return crawlrun.crawl(s, crawlrun.Request(cat, "main", commit, **kw)).as_json()

    first = crawl(live, repo.head())
    assert first["files_total"] == 3  # two .ts and the README: the original's policy
    _as_before_issue_23(live, engine)
    before = label_state(live, "acme:main")

    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("libs/core/src/util.ts", "export const MAX_BYTES = 2;\n")  # and one commit lands
    sha = repo.commit("bump")
    summary = crawl(live, sha)
    assert summary["mode"] == "incremental"
    assert summary["files_embedded"] == len(NEW) + 1  # the new files and the edited one
    after = label_state(live, "acme:main")
    kept = {k: v for k, v in before.items() if v["relative_path"] != "libs/core/src/util.ts"}
    assert {k: after[k] for k in kept} == kept  # untouched TypeScript and Markdown chunks
    paths_now = {v["relative_path"] for v in after.values()}
    assert NEW <= paths_now and "crates/native/target/debug/gen.rs" not in paths_now

    ref = EdgeStore(tmp_path / "ref", "monodex")
    crawl(ref, sha, full=True)
    ignored = {"label_id", "source_uri"}
    strip = lambda st: {k: {f: x for f, x in v.items() if f not in ignored} for k, v in st.items()}  # noqa: E731
    assert strip(after) == strip(label_state(ref, "acme:main"))
    ref.close()
    live.close()


def test_a_change_that_cannot_be_followed_is_a_full_crawl() -> None:
    from monodex.indexer.write import policychange

    names = chunkers.id_names()
    assert policychange.chunker_ids("e;line-windows:v1;s", names) == (
        "e",
        "s",
        {"lineBased": "line-windows:v1"},
    )
    assert policychange.chunker_ids("e;unknown-chunker:v1;s", names) is None
    new = crawlpolicy.parse(crawlpolicy.BUILTIN, "built-in")
    extra = {"policy_fingerprint": "not one we know", "implementation": "e;line-windows:v1;s"}
    assert (
        policychange.follow(extra, policy=new, implementation="e;line-windows:v1;s", names=names, paths=[])
        is None
    )


def test_a_label_of_the_previous_built_in_policy_gains_the_other_text_files(
    git_repo, engine, tmp_path
) -> None:  # type: ignore[no-untyped-def]
    """The built-in policy grew again (other text by lines: Dockerfile, .sql, .html ...): a label
    crawled before, which recorded its policy, adds just those files at its next refresh."""
    files = {
        "src/app.ts": "export const app = 1;\n",
        "docker/Dockerfile": "FROM node:20\nRUN npm ci\n",
        "db/schema.sql": "CREATE TABLE users (id int);\n",
        "web/index.html": "<html><body>acme</body></html>\n",
        "LICENSE": "MIT\n",
    }
    grown = {"docker/Dockerfile", "db/schema.sql", "web/index.html"}
    repo = git_repo(files, name="acme")
    p = paths.resolve()
    p.config_dir.mkdir(parents=True, exist_ok=True)
    previous = {
        k: v for k, v in crawlpolicy.BUILTIN["fileTypes"].items() if k not in ("Dockerfile", ".sql", ".html")
    }
    p.user_crawl_file.write_text(json.dumps({**crawlpolicy.BUILTIN, "fileTypes": previous}))
    cat = Catalog("acme", repo.path)
    cfg = config.Config(catalogs={"acme": cat})
    live = EdgeStore(tmp_path / "live", "monodex")

    def crawl(commit: str) -> dict[str, Any]:
        with Session(cfg, p, store=live, engine=engine) as s:
            return crawlrun.crawl(s, crawlrun.Request(cat, "main", commit)).as_json()

    assert crawl(repo.head())["files_total"] == 1
    p.user_crawl_file.unlink()  # the built-in policy of now applies
    repo.write("src/app.ts", "export const app = 2;\n")
    summary = crawl(repo.commit("bump"))
    assert summary["mode"] == "incremental" and summary["files_embedded"] == len(grown) + 1
    assert {v["relative_path"] for v in label_state(live, "acme:main").values()} == grown | {"src/app.ts"}
    live.close()
