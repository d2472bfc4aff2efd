"""`chunks_pending`: the chunks of the label a crawl leaves without a dense vector, counted with
a filter that leaves out the chunk-kind condition (only chunks are ever stored pending): a label
on a base counts the base's waiting chunks it still holds, and its own, never another label's
nor metadata (issue 36)."""

from __future__ import annotations

from monodex.indexer.points import filters, membership
from monodex.indexer.store.base import Match
from monodex.indexer.write import fill

from monodex.main import main
from monodex.schema.payload import Key

TS = "export function step%d(input: string): string {\n  return input + '%d';\n}\n"


def _waiting(store, label_id: str) -> int:  # type: ignore[no-untyped-def]
    """The same count through the chunk filter every search uses."""
    return store.count(filters.label_chunks(membership.of(store, label_id), Match(Key.DENSE_PENDING, True)))


def test_pending_counts_the_labels_own_waiting_chunks(git_repo, run_json, open_session) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/m{i}.ts": TS % (i, i) for i in range(4)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, first, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense", "--json"
    )
    assert code == 0, err
    repo.write("src/m1.ts", TS % (1, 100) + TS % (9, 9))
    repo.write("src/extra.ts", TS % (5, 5))
    repo.write("src/more.ts", TS % (6, 6))
    repo.git("rm", "-q", "src/m3.ts")
    code, second, err = run_json(
        "crawl",
        "--catalog",
        "acme",
        "--label",
        "next",
        "--commit",
        repo.commit("next"),
        "--no-wait-dense",
        "--json",
    )
    assert code == 0, err
    with open_session() as s:
        main_id, next_id = "acme:main", "acme:next"
        assert fill.pending(s.store, main_id) == _waiting(s.store, main_id) == first["chunks_pending"] > 0
        assert fill.pending(s.store, next_id) == _waiting(s.store, next_id) == second["chunks_pending"]
        assert second["chunks_pending"] != first["chunks_pending"]  # m3 gone; m1, extra and more its own
        fill.fill(s.store, s.engine, main_id)
        assert fill.pending(s.store, main_id) == 0
        # next still waits for what only it holds: the new m1, extra.ts and more.ts
        assert fill.pending(s.store, next_id) == _waiting(s.store, next_id) > 0
