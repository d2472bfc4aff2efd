"""Chunk identity covers the package (issue 12 item 4): labels whose commits give the same file
another package name hold different chunks, so `verify --repair` converges and stays converged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from monodex.indexer.points import membership
from monodex.indexer.points.filters import CODE
from monodex.indexer.points.identity import chunk_point_id
from monodex.indexer.store.base import Filter, Match
from monodex.indexer.write import crawl, crawlrun

STRINGS_TS = """/** Pads a string on the left until it is `width` characters long. */
export function padLeft(text: string, width: number, fill: string = ' '): string {
  let out: string = text;
  while (out.length < width) {
    out = fill + out;
  }
  return out;
}
"""

RETRY_TS = """/** Retries an asynchronous operation a few times before giving up. */
export async function retry<T>(work: () => Promise<T>, attempts: number = 3): Promise<T> {
  for (let i: number = 1; ; i++) {
    try {
      return await work();
    } catch (error) {
      if (i >= attempts) {
        throw error;
      }
    }
  }
}
"""

# No root package.json: files outside any package fall back to the catalog name.
FILES: dict[str, str | bytes] = {
    "README.md": "# Acme\n\nShared helpers of the acme monorepo.\n",
    "tools/util/src/strings.ts": STRINGS_TS,
    "libraries/net/package.json": json.dumps({"name": "@acme/net"}),
    "libraries/net/src/retry.ts": RETRY_TS,
}
STRINGS = "tools/util/src/strings.ts"


def _points(open_session) -> dict[str, dict[str, Any]]:
    with open_session() as s:
        return {r.id: r.payload for r in s.store.scroll(Filter(must=(Match("source_type", CODE),)))}


def _package_of(open_session, points: dict[str, dict[str, Any]], label_id: str, path: str) -> set[str]:
    with open_session() as s:
        held = membership.of(s.store, label_id)
    return {str(p["package_name"]) for p in points.values() if held.holds(p) and p["relative_path"] == path}


@pytest.fixture
def history(git_repo):  # type: ignore[no-untyped-def]
    """Three commits: no package at tools/util, then @acme/util, then renamed to @acme/strings."""
    repo = git_repo(FILES, name="acme")
    commits = [repo.head()]
    repo.write("tools/util/package.json", json.dumps({"name": "@acme/util"}))
    commits.append(repo.commit("tools/util becomes a package"))
    repo.write("tools/util/package.json", json.dumps({"name": "@acme/strings"}))
    commits.append(repo.commit("rename the package"))
    from monodex.main import main

    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    return repo, commits


LABELS = {"before": 0, "before-too": 0, "after": 1, "renamed": 2, "renamed-too": 2}


def _crawl_all(run_json, commits: list[str]) -> None:  # type: ignore[no-untyped-def]
    for label, i in LABELS.items():
        code, _, err = run_json(
            "crawl", "--catalog", "acme", "--label", label, "--commit", commits[i], "--json"
        )
        assert code == 0, err
    # One label moved along the history: incremental refreshes across the package changes.
    for i in range(3):
        run = run_json("crawl", "--catalog", "acme", "--label", "moving", "--commit", commits[i], "--json")
        assert run[0] == 0, run[2]


def _clean(run_json, *argv: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    code, result, err = run_json("verify", *argv, "--json")
    bad = [r for r in result["labels"] if not r["ok"]]
    assert code == 0 and not bad, (bad, err)
    return result  # type: ignore[no-any-return]


def test_labels_across_a_package_change_verify_clean_and_repair_converges(
    history, run_json, open_session
) -> None:  # type: ignore[no-untyped-def]
    repo, commits = history
    _crawl_all(run_json, commits)
    points = _points(open_session)
    # Every label holds the file under the package its own commit gives it.
    assert _package_of(open_session, points, "acme:before", STRINGS) == {"acme"}
    assert _package_of(open_session, points, "acme:before-too", STRINGS) == {"acme"}
    assert _package_of(open_session, points, "acme:after", STRINGS) == {"@acme/util"}
    assert _package_of(open_session, points, "acme:renamed", STRINGS) == {"@acme/strings"}
    assert _package_of(open_session, points, "acme:moving", STRINGS) == {"@acme/strings"}
    # ... and so does the text the model saw and the breadcrumb.
    for p in points.values():
        if p["relative_path"] == STRINGS:
            assert p["package_name"].replace("@", "%40") in str(p["breadcrumb"])
    # Files whose package did not change are still shared by every label.
    retry = {p["file_id"] for p in points.values() if p["relative_path"] == "libraries/net/src/retry.ts"}
    assert len(retry) == 1

    assert len(_clean(run_json)["labels"]) == len(LABELS) + 1  # clean right after crawling

    # Drift injected into a file every label shares: repairing one label fixes it for all.
    fid = next(iter(retry))
    with open_session() as s:
        s.store.set_payload([chunk_point_id(fid, 1)], {"package_name": "@acme/wrong"})
    code, found, _ = run_json("verify", "--json")
    assert code == 1 and all(r["drift"]["package_mismatches"] == 1 for r in found["labels"])
    code, one, err = run_json("verify", "--catalog", "acme", "--label", "before", "--repair", "--json")
    assert code == 0 and one["labels"][0]["ok_after_repair"] is True, err
    _clean(run_json)  # no other label broke

    settled = _points(open_session)
    code, again, err = run_json("verify", "--repair", "--json")  # nothing left to do
    assert code == 0, err
    assert all(r["ok"] and "repaired" not in r and not any(r["drift"].values()) for r in again["labels"])
    assert _points(open_session) == settled
    _clean(run_json)


def test_a_full_repair_then_verify_is_clean(history, run_json) -> None:  # type: ignore[no-untyped-def]
    """The reported sequence: `verify --repair` over every label, then `verify`."""
    _, commits = history
    _crawl_all(run_json, commits)
    code, repaired, err = run_json("verify", "--repair", "--json")
    assert code == 0, err
    assert all(r.get("ok_after_repair", r["ok"]) for r in repaired["labels"])
    _clean(run_json)


def test_root_files_of_two_catalogs_of_one_repository_do_not_fight(
    history, run_json, git_repo, open_session
) -> None:  # type: ignore[no-untyped-def]
    """A file outside any package is named after its catalog: two clones registered as two
    catalogs must not share (and overwrite) its chunks."""
    from monodex.main import main

    repo, commits = history
    copy = git_repo(name="acme-copy")
    copy.git("fetch", "-q", str(repo.path), "main")
    copy.git("checkout", "-q", "-B", "main", "FETCH_HEAD")
    assert main(["catalog", "add", "acme-copy", str(copy.path)]) == 0
    # label `first` (no branch of that name): a label `main` at an old commit is a moved branch
    for catalog in ("acme", "acme-copy"):
        assert (
            run_json("crawl", "--catalog", catalog, "--label", "first", "--commit", commits[0], "--json")[0]
            == 0
        )
    points = _points(open_session)
    assert _package_of(open_session, points, "acme:first", "README.md") == {"acme"}
    assert _package_of(open_session, points, "acme-copy:first", "README.md") == {"acme-copy"}
    _clean(run_json)
    code, _, err = run_json("verify", "--repair", "--json")
    assert code == 0, err
    _clean(run_json)


def _old_file_id(**kw: str) -> str:
    """The file id before package names were part of it (the seed's four fields)."""
    from monodex.indexer.points import identity

    return identity.file_id(
        embedder_id=kw["embedder_id"],
        chunker_id=kw["chunker_id"],
        blob_id=kw["blob_id"],
        relative_path=kw["relative_path"],
    )


def _old_implementation_id(impl: Any) -> str:
    from monodex.indexer import chunkers

    return ";".join([impl.embedder_id, *(impl.chunker_id(name) for name in sorted(chunkers.CHUNKERS))])


def test_an_index_built_with_the_old_ids_is_migrated(history, run_json, monkeypatch, open_session) -> None:  # type: ignore[no-untyped-def]
    _, commits = history
    with monkeypatch.context() as old:  # build the index the way the previous version did
        old.setattr(crawl, "file_id", _old_file_id)
        old.setattr(crawlrun, "implementation_id", _old_implementation_id)
        for label, i in (("before", 0), ("after", 1), ("moving", 0)):
            assert (
                run_json("crawl", "--catalog", "acme", "--label", label, "--commit", commits[i], "--json")[0]
                == 0
            )
        code, drift, _ = run_json("verify", "--json")
        assert code == 1 and not all(r["ok"] for r in drift["labels"])  # the reported drift

    # The next refresh of a label built the old way is a full crawl, and model work stays small.
    code, moved, err = run_json(
        "crawl", "--catalog", "acme", "--label", "moving", "--commit", commits[2], "--json"
    )
    assert code == 0 and moved["mode"] == "full", err
    assert moved["chunks_reused"] > 0
    code, _, err = run_json("verify", "--repair", "--json")
    assert code == 0, err
    _clean(run_json)
    settled = _points(open_session)
    again = run_json("verify", "--repair", "--json")[1]
    assert all("repaired" not in r for r in again["labels"]) and _points(open_session) == settled
    assert all(
        _package_of(open_session, settled, f"acme:{lb}", STRINGS) for lb in ("before", "after", "moving")
    )
