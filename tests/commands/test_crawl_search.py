"""The core path through the real CLI: crawl a real git repository, search it, view it."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from monodex.disk import paths

CRAWL = ("crawl", "--catalog", "acme", "--json")


def test_crawl_then_search_finds_the_right_file(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, summary, err = run_json(*CRAWL, "--label", "main", "--commit", "HEAD")
    assert code == 0, err
    assert summary["mode"] == "full" and summary["commit"] == monorepo.head()
    # 3 .ts under src/ + README.md + 5 config files (package.json x4, rush.json); lib/ and
    # node_modules/ excluded
    assert summary["files_total"] == 9
    assert summary["files_embedded"] == 9 and summary["files_reused"] == 0
    assert summary["chunks_embedded"] >= 4
    code, found, err = run_json(
        "search",
        "--catalog",
        "acme",
        "--label",
        "main",
        "--text",
        "retry a failed HTTP request with backoff",
        "--limit",
        "3",
        "--json",
    )
    assert code == 0, err
    top = found["results"][0]
    assert top["relative_path"] == "libraries/net/src/retry.ts"
    assert top["package_name"] == "@acme/net"
    assert set(top) >= {
        "score",
        "file_id",
        "chunk_ordinal",
        "chunk_count",
        "start_line",
        "end_line",
        "breadcrumb",
        "symbol_name",
        "chunk_kind",
        "text",
    }


def test_view_reconstructs_the_file(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    _, found, _ = run_json(
        "search",
        "--catalog",
        "acme",
        "--label",
        "main",
        "--text",
        "load the JSON configuration",
        "--limit",
        "10",
        "--json",
    )
    hit = next(r for r in found["results"] if r["relative_path"].endswith("ConfigLoader.ts"))
    code, viewed, err = run_json(
        "view", "--catalog", "acme", "--label", "main", "--id", hit["file_id"], "--json"
    )
    assert code == 0, err
    original = (monorepo.path / "libraries/config/src/ConfigLoader.ts").read_text()
    assert "".join(c["text"] for c in viewed["chunks"]) == original
    assert [c["chunk_ordinal"] for c in viewed["chunks"]] == list(range(1, len(viewed["chunks"]) + 1))
    code, one, _ = run_json(
        "view", "--catalog", "acme", "--label", "main", "--id", f"{hit['file_id']}:1", "--json"
    )
    assert code == 0 and [c["chunk_ordinal"] for c in one["chunks"]] == [1]


def test_second_label_embeds_only_changed_files(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.git("checkout", "-q", "-b", "feature")
    monorepo.write("libraries/net/src/retry.ts", "export const retries: number = 5;\n")
    sha = monorepo.commit("tweak")
    code, summary, err = run_json(*CRAWL, "--label", "feature", "--commit", sha)
    assert code == 0, err
    assert summary["files_embedded"] == 1 and summary["files_reused"] == 8
    assert summary["chunks_embedded"] == 1
    # Both labels see their own version of retry.ts, and main is untouched.
    _, main_hits, _ = run_json(
        "search", "--catalog", "acme", "--label", "main", "--text", "retries", "--limit", "10", "--json"
    )
    _, feat_hits, _ = run_json(
        "search", "--catalog", "acme", "--label", "feature", "--text", "retries", "--limit", "10", "--json"
    )
    main_retry = [r["text"] for r in main_hits["results"] if r["relative_path"].endswith("retry.ts")]
    feat_retry = [r["text"] for r in feat_hits["results"] if r["relative_path"].endswith("retry.ts")]
    assert all("fetchWithRetry" in t for t in main_retry) and main_retry
    assert feat_retry == ["export const retries: number = 5;\n"]


def test_recrawl_after_delete_removes_the_file_from_the_label(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.remove("libraries/terminal/src/colors.ts")
    sha = monorepo.commit("drop colors")
    code, summary, _ = run_json(*CRAWL, "--label", "main", "--commit", sha)
    assert code == 0
    assert summary["files_removed"] == 1 and summary["files_embedded"] == 0 and summary["files_reused"] == 0
    assert summary["mode"] == "incremental" and summary["files_total"] == 8  # the deleted path only
    _, found, _ = run_json(
        "search",
        "--catalog",
        "acme",
        "--label",
        "main",
        "--text",
        "colorize terminal text",
        "--limit",
        "10",
        "--json",
    )
    assert not [r for r in found["results"] if r["relative_path"].endswith("colors.ts")]
    _, labels, _ = run_json("labels", "--json")
    row = labels["labels"][0]
    assert (row["label"], row["commit_oid"], row["crawl_complete"], row["source_kind"]) == (
        "main",
        sha,
        True,
        "git-commit",
    )


def test_working_dir_reuses_unchanged_files(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    (monorepo.path / "libraries/net/src/retry.ts").write_text("export const edited = true;\n")
    code, summary, err = run_json(*CRAWL, "--label", "wip", "--working-dir")
    assert code == 0, err
    assert summary["files_reused"] == 8 and summary["files_embedded"] == 1 and summary["commit"] == ""
    _, labels, _ = run_json("labels", "--json")
    wip = next(r for r in labels["labels"] if r["label"] == "wip")
    assert (wip["source_kind"], wip["commit_oid"], wip["crawl_complete"]) == ("working-directory", "", True)


def test_search_errors_say_what_to_run(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("search", "--catalog", "acme", "--label", "main", "--text", "x")
    assert code == 1 and "monodex crawl --catalog acme --label main" in err
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    code, _, err = run_json("search", "--catalog", "acme", "--label", "nope", "--text", "x")
    assert code == 2 and "not indexed" in err
    code, _, err = run_json(*CRAWL, "--label", "main", "--commit", "no-such-branch")
    assert code == 2 and "no-such-branch" in err
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "Main", "--commit", "HEAD")
    assert code == 2 and "invalid label name" in err


def test_dry_run_reports_plan_and_writes_nothing(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, plan, err = run_json(*CRAWL, "--label", "main", "--commit", "HEAD", "--dry-run")
    assert code == 0, err
    assert plan["files_to_index"] == 9 and plan["chunks"] >= 9
    json_strategy = plan["by_strategy"].get("json", 0) or plan["by_strategy"].get("lineBased", 0)
    assert plan["by_strategy"]["typescript"] == 3 and plan["by_strategy"]["markdown"] == 1
    assert json_strategy == 5  # the package.json files and rush.json (config is indexed)
    assert plan["skipped"].get("vendored: node_modules/", 0) >= 1
    assert not paths.resolve().shard_dir.exists() or not any(paths.resolve().shard_dir.rglob("*.wal*"))


def test_cli_entry_point_runs_as_a_program(monorepo) -> None:  # type: ignore[no-untyped-def]
    proc = subprocess.run(
        [sys.executable, "-m", "monodex", "labels", "--json"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and '"labels": []' in proc.stdout


def test_identity_is_stable_across_installations(monorepo, run_json, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Two machines crawling the same commit agree on every file id and point id."""
    from monodex.indexer import session
    from monodex.indexer.store.base import Filter, Match

    from monodex.settings import config

    def point_ids() -> set[tuple[str, str]]:
        p = paths.resolve()
        store = session.store(config.load(p), p)
        try:
            return {
                (r.id, r.payload["file_id"])
                for r in store.scroll(Filter(must=(Match("source_type", "code"),)))
            }
        finally:
            store.close()

    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    first = point_ids()
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        (tmp_path / var).mkdir()
        monkeypatch.setenv(var, str(tmp_path / var))
    assert run_json("catalog", "add", "acme", str(monorepo.path))[0] == 0
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    assert point_ids() == first and len(first) >= 4


def test_gc_command_dry_run_and_real(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    code, dry, err = run_json("gc", "--catalog", "acme", "--dry-run", "--json")
    assert code == 0, err
    assert dry["dry_run"] is True and dry["deleted_chunks"] == 0
    code, text, _ = run_json("gc", "--catalog", "acme")
    assert code == 0 and "deleted 0 chunks" in text and "compact" not in text


def test_gc_compact_compacts_the_index_and_every_answer_stays(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    """What the runner does nightly, for a user without a runner (issue 25)."""
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    query = ("search", "--catalog", "acme", "--label", "main", "--text", "retry request", "--json")
    before = run_json(*query)[1]["results"]
    code, result, err = run_json("gc", "--catalog", "acme", "--compact", "--json")
    assert code == 0, err
    assert isinstance(result["compacted"], bool) and result["compact_seconds"] >= 0
    assert run_json(*query)[1]["results"] == before
    code, text, _ = run_json("gc", "--catalog", "acme", "--compact")
    assert code == 0 and "index " in text and " compact" in text
    code, dry, _ = run_json("gc", "--catalog", "acme", "--compact", "--dry-run", "--json")
    assert code == 0 and "compacted" not in dry  # a dry run changes nothing


def test_gc_compact_on_a_qdrant_server_says_the_server_compacts_itself() -> None:
    """Before, it printed "index already compact", as if it had looked."""
    from monodex.commands import gc

    r = {"dry_run": False, "deleted_chunks": 0, "text_bytes": 0, "unlabeled_chunks": 0, "incomplete_chunks": 0,
         "incomplete_files": 0, "skipped_incomplete_because_crawl_in_progress": False,
         "compacted": None, "compact_seconds": 0.0}  # fmt: skip
    text = gc._render(r)
    assert "the Qdrant server compacts its segments by itself" in text and "already compact" not in text
    assert "index already compact in 0.0 s" in gc._render({**r, "compacted": False})


def _compacted(timeout: float = 120) -> bool:
    """Whether the compaction a crawl started in another process is done (META says nothing
    written since), waiting for it."""
    meta = paths.resolve().shard_dir / "monodex" / "monodex-collection.json"
    deadline = time.monotonic() + timeout
    while json.loads(meta.read_text()).get("written") and time.monotonic() < deadline:
        time.sleep(0.2)
    return not json.loads(meta.read_text()).get("written")


def test_a_crawl_without_a_runner_compacts_once_its_writes_outgrow_a_share(
    monorepo, run_json, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    """Issue 25: with no runner nobody compacts tonight, and each `monodex search` opens what was
    written since the last compaction, so the write command compacts when that is a share; in
    another process since issue 36, which the command does not wait for."""
    from monodex.indexer.upkeep import compaction

    code, first, err = run_json(*CRAWL, "--label", "main", "--commit", "HEAD")
    assert code == 0 and "compaction" not in first and "compacted" not in first, err  # below MIN_WRITES
    query = ("search", "--catalog", "acme", "--label", "main", "--text", "retry request", "--json")
    before = run_json(*query)[1]["results"]
    monkeypatch.setattr(compaction, "MIN_WRITES", 1)
    code, again, err = run_json(*CRAWL, "--label", "dev", "--commit", "HEAD")
    assert code == 0, err
    assert again["compaction"]["written"] > 0 and again["compaction"]["pid"] > 0
    assert "compacted" not in again  # nothing was compacted in the command
    assert run_json(*query)[1]["results"] == before  # answered while it compacts
    assert _compacted()
    assert run_json(*query)[1]["results"] == before
    code, text, _ = run_json("crawl", "--catalog", "acme", "--label", "dev", "--commit", "HEAD")
    assert code == 0 and "compacting the index" not in text  # nothing written since
    code, held, err = run_json(*CRAWL, "--label", "other", "--commit", "HEAD", "--no-compact")
    assert code == 0 and "compaction" not in held, err
    code, later, err = run_json(*CRAWL, "--label", "other", "--commit", "HEAD")  # what it wrote counts
    assert code == 0 and later["compaction"]["written"] > 0, err
    assert _compacted()


def test_a_crawl_handed_to_the_runner_never_compacts(monorepo, run_json, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Edge's optimize holds the GIL for its whole run: every client of the runner would wait.
    The runner compacts at night; its searches never open the shard anew."""
    from monodex.indexer.upkeep import compaction
    from monodex.scheduler.runner import Runner

    monkeypatch.setattr(compaction, "MIN_WRITES", 1)
    runner = Runner(paths.resolve())
    runner.session.wake = lambda: None
    runner.server.start()
    try:
        code, summary, err = run_json(*CRAWL, "--label", "main", "--commit", "HEAD", "--no-wait-dense")
        assert code == 0, err
        assert summary["files_embedded"] == 9 and "compaction" not in summary
    finally:
        runner.server.close()
        runner.session.close()
    code, summary, err = run_json(*CRAWL, "--label", "main", "--commit", "HEAD")  # no runner now
    assert code == 0 and summary["compaction"]["written"] > 0, err
    assert _compacted()


def test_catalogs_sharing_files_each_see_their_own_labels_only(monorepo, run_json, git_repo) -> None:  # type: ignore[no-untyped-def]
    """Identical files in two catalogs share chunks (file ids exclude the catalog, as in monodex
    0.4), yet each catalog's search sees exactly its own label's files."""
    from tests.commands.conftest import MONOREPO

    other = git_repo({k: v for k, v in MONOREPO.items() if "retry" not in k}, name="other")
    assert run_json("catalog", "add", "other", str(other.path))[0] == 0
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    code, summary, _ = run_json(
        "crawl", "--catalog", "other", "--label", "main", "--commit", "HEAD", "--json"
    )
    assert code == 0 and summary["files_reused"] == 8 and summary["files_embedded"] == 0
    _, mine, _ = run_json(
        "search",
        "--catalog",
        "other",
        "--label",
        "main",
        "--text",
        "retry request",
        "--limit",
        "20",
        "--json",
    )
    paths_seen = {r["relative_path"] for r in mine["results"]}
    assert paths_seen and not any(p.endswith("retry.ts") for p in paths_seen)
    assert "libraries/config/src/ConfigLoader.ts" in paths_seen
