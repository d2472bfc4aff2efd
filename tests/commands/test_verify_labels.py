"""`monodex verify` finds every kind of drift we can inject and repairs it; `monodex labels rm`."""

from __future__ import annotations

from typing import Any

from monodex.indexer.points import filters, labelmeta, membership
from monodex.indexer.points.filters import CODE
from monodex.indexer.points.identity import chunk_point_id
from monodex.indexer.session import Session
from monodex.indexer.store.base import Filter, Match

from monodex.disk import paths
from monodex.schema.payload import Key
from monodex.settings import config

CRAWL = ("crawl", "--catalog", "acme", "--json")
LONG_TS = "\n".join(
    f"/** Step {i}. */\nexport function step{i}(x: string): string {{\n"
    + "".join(f"  const v{j} = x.replace('{j}', '{i}');\n" for j in range(10))
    + "  return x;\n}\n"
    for i in range(6)
)


def _points(store: Any, **match: Any) -> list[Any]:
    must = [Match("source_type", CODE), *(Match(k, v) for k, v in match.items())]
    return list(store.scroll(Filter(must=tuple(must))))


def _state(store: Any, label_id: str) -> dict[str, dict[str, Any]]:
    return {r.id: r.payload for r in store.scroll(filters.label_chunks(membership.of(store, label_id)))}


def test_verify_finds_each_kind_of_drift_and_repairs_it(monorepo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    monorepo.write("libraries/net/src/pipeline.ts", LONG_TS)
    monorepo.commit("pipeline")
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.git("checkout", "-q", "-b", "feature")
    monorepo.write("libraries/net/src/extra.ts", "export const extra = 1;\n")
    monorepo.write("libraries/net/src/spare.ts", "export const spare = 2;\n")
    monorepo.commit("feature only")
    assert run_json(*CRAWL, "--label", "feature", "--commit", "HEAD")[0] == 0
    code, clean, _ = run_json("verify", "--json")
    assert code == 0 and all(r["ok"] for r in clean["labels"]) and len(clean["labels"]) == 2

    with open_session() as s:
        store = s.store
        main, feature = membership.of(store, "acme:main"), membership.of(store, "acme:feature")
        # feature stands on main's base, holding its two own files over it
        assert feature.base == main.base and len(feature.changed) == 2
        before = _state(store, "acme:main")
        by_path = {p.payload["relative_path"]: p.payload for p in _points(store, chunk_ordinal=1)}
        colors = by_path["libraries/terminal/src/colors.ts"]["file_id"]  # missing: leaves the base
        store.set_payload([chunk_point_id(colors, 1)], {"active_label_ids": []})
        extra = by_path["libraries/net/src/extra.ts"]["file_id"]  # stale: feature's file joins main
        store.set_payload([chunk_point_id(extra, 1)], {"active_label_ids": [main.base]})
        retry = by_path["libraries/net/src/retry.ts"]["file_id"]  # incomplete sentinel
        store.set_payload([chunk_point_id(retry, 1)], {"file_complete": False})
        pipeline = by_path["libraries/net/src/pipeline.ts"]["file_id"]  # a chunk lost
        assert by_path["libraries/net/src/pipeline.ts"]["chunk_count"] >= 3
        store.delete([chunk_point_id(pipeline, 2)])
        loader = by_path["libraries/config/src/ConfigLoader.ts"]["file_id"]  # wrong package
        store.set_payload([chunk_point_id(loader, 1)], {"package_name": "@acme/wrong"})
        spare = by_path["libraries/net/src/spare.ts"]["file_id"]  # an orphan: feature's delta drops it
        kept = {p: f for p, f in feature.changed.items() if f != spare}
        delta = str(labelmeta.read(store, "acme:feature").extra[Key.MEMBERSHIP_DELTA])  # type: ignore[union-attr]
        store.set_payload([delta], {"paths": sorted(kept), "files": [kept[p] for p in sorted(kept)]})

    code, found, err = run_json("verify", "--catalog", "acme", "--label", "main", "--json")
    assert code == 1, err
    drift = found["labels"][0]["drift"]
    assert drift == {
        "missing_files": 1,
        "stale_memberships": 1,
        "incomplete_sentinels": 1,
        "chunk_count_mismatches": 1,
        "package_mismatches": 1,
        "orphan_chunks": 2,  # spare's chunk, and colors' (no label holds it any more)
        "incomplete_label": 0,
        "branch_moved": 0,
    }
    code, text, _ = run_json("verify", "--catalog", "acme", "--label", "main")
    assert code == 1 and "monodex verify --repair" in text and "missing files 1" in text

    code, repaired, _ = run_json("verify", "--catalog", "acme", "--label", "main", "--repair", "--json")
    assert code == 0 and repaired["labels"][0]["ok_after_repair"] is True
    # main's repair gave it a base of its own; feature still misses colors (gone from the base it
    # stands on) and spare (the orphan, collected)
    code, again, _ = run_json("verify", "--json")
    rows = {r["label"]: r for r in again["labels"]}
    assert code == 1 and rows["main"]["ok"] and rows["feature"]["drift"]["missing_files"] == 2
    assert run_json("verify", "--repair", "--json")[0] == 0
    assert all(r["ok"] for r in run_json("verify", "--json")[1]["labels"])
    with open_session() as s:
        after = _state(s.store, "acme:main")
        feature_files = {p["file_id"] for p in _state(s.store, "acme:feature").values()}
    assert set(after) == set(before)
    assert {k: {f: v for f, v in p.items() if f != "active_label_ids"} for k, p in after.items()} == {
        k: {f: v for f, v in p.items() if f != "active_label_ids"} for k, p in before.items()
    }
    assert colors in feature_files and extra in feature_files  # the other label kept its files


def test_labels_rm_removes_membership_chunks_and_metadata(monorepo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.git("checkout", "-q", "-b", "feature")
    monorepo.write("libraries/net/src/extra.ts", "export const extra = 1;\n")
    monorepo.commit("feature only")
    assert run_json(*CRAWL, "--label", "feature", "--commit", "HEAD")[0] == 0
    code, out, _ = run_json("labels", "rm", "--catalog", "acme", "--label", "feature", "--json")
    # feature stood on main's base: only its own file's chunks go, no chunk loses a key
    assert code == 0 and out["chunks_deleted"] >= 1 and out["chunks_unlabelled"] == 0
    code, listed, _ = run_json("labels", "--json")
    assert [r["label"] for r in listed["labels"]] == ["main"]
    with open_session() as s:
        assert not _points(s.store, relative_path="libraries/net/src/extra.ts")  # only feature had it
        base = membership.of(s.store, "acme:main").base
        assert all(p.payload["active_label_ids"] == [base] for p in _points(s.store))
        assert membership.deltas(s.store) == {}  # feature's delta point went with it
    code, _, err = run_json("labels", "rm", "--catalog", "acme", "--label", "feature")
    assert code == 2 and "not indexed" in err
    code, _, err = run_json("labels", "rm", "--catalog", "acme")
    assert code == 2 and "needs --label" in err
    assert run_json("verify", "--json")[0] == 0


def test_nightly_verification_prunes_labels_whose_branch_is_gone(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    import json
    import threading

    from monodex.indexer.ops import background

    assert run_json(*CRAWL, "--label", "main", "--commit", "HEAD")[0] == 0
    monorepo.git("branch", "-q", "topic")
    assert run_json(*CRAWL, "--label", "topic", "--commit", "topic")[0] == 0
    monorepo.git("branch", "-q", "-D", "topic")
    p = paths.resolve()
    raw = json.loads(p.config_file.read_text())
    raw["catalogs"]["acme"]["prune_labels"] = True
    p.config_file.write_text(json.dumps(raw))
    with Session(config.load(p), p, shared=True) as s:
        result = background.nightly_verify(s, threading.Event())
    assert result["pruned"] == ["acme:topic"] and result["failed"] == 0
    assert [r["label"] for r in result["labels"]] == ["main"] and result["labels"][0]["ok"]
