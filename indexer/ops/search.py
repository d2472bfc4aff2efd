"""A search (ops.answers.run's biggest answer): the label(s) it reads, caught up first where you
stand, the worktree's overlay laid over, the previous model's collection when the new one is not
complete, then the hits, their freshness, their holders and the token budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monodex.indexer.session import Session

from monodex import names
from monodex import requests as rq
from monodex.git import refs
from monodex.labels import standing
from monodex.schema.search import CaughtUp, Freshness, SearchAnswer, ServedBy


class LazyQueryEmbedder:
    """The model loads on the first dense query: a lexical search never needs it."""

    def __init__(self, s: Session) -> None:
        self.s = s

    def embed_query(self, text: str) -> Any:
        return self.s.engine.embed_query(text)


def search(s: Session, r: rq.SearchRequest) -> SearchAnswer:
    """Results plus the label's freshness; `fresh` (seconds) waits for the label to reflect its
    branch first; `max_tokens` packs the results into that budget. With `labels` or `all_labels`
    it searches several labels at once: each hit says which of them hold it (issue 24)."""
    from monodex.indexer.compare import across
    from monodex.indexer.follow import freshness, ondemand
    from monodex.indexer.history.cochanges import History
    from monodex.indexer.points import labelmeta
    from monodex.indexer.read import budget
    from monodex.indexer.read import search as searching

    cat = s.config().catalog(r.catalog)
    filters = searching.Filters(paths=r.paths, package=r.package, kind=r.kind, lang=r.lang)
    ranking = searching.Ranking.tuned(
        r.mode,
        lexical_weight=cat.search.lexical_weight,
        history_weight=cat.search.history_weight,
        per_file=r.per_file,
        include_tests=r.include_tests,
        explain=r.explain,
    )
    scope = None
    here = made = caught = applied = fresh = None
    if r.labels or r.all_labels:  # several labels: the current model's collection answers
        scope = searching.Scope.of(s.store, across.select(s.store, r.catalog, r.labels, every=r.all_labels))
        store, embedder, served_by = s.store, LazyQueryEmbedder(s), None
    else:
        here = standing.find(Path(r.worktree), {cat.name: cat.path}) if r.worktree else None
        if r.worktree is not None or r.fresh is not None:  # a label not indexed yet: index it now
            bound = r.fresh if r.fresh is not None else rq.DEFAULT_FRESH_SECONDS
            made = ondemand.ensure(s, cat, r.label, here=here, seconds=bound)
            if made is None and not r.as_indexed:  # where you stand is what you get (DESIGN.md)
                caught = ondemand.catch_up(s, cat, r.label, here=here, seconds=bound)
        if r.fresh is not None and (made is None or r.wait_dense):
            fresh = ondemand.wait_fresh(s, cat, r.label, r.fresh, dense=r.wait_dense)
        store, embedder, served_by = _generation(s, r.catalog, r.label)
        applied = _overlay(s, r) if served_by is None else None
    past = History.open(s.paths.state_dir, r.catalog)
    try:
        found = searching.search(
            store,
            embedder,
            catalog=r.catalog,
            label=r.label or None,
            text=r.text,
            limit=r.limit,
            filters=filters,
            ranking=ranking,
            history=past,
            overlay=searching.Overlay(applied.membership, applied.hidden) if applied else None,
            scope=scope,
        )
    finally:
        if past is not None:
            past.close()
    results = found.results
    notes = found.notes
    answer: SearchAnswer = {"results": results, "mode": found.mode, "dense_coverage": found.dense_coverage}
    if made is not None:
        answer["on_demand"], note = made
        notes.insert(0, note)
    if caught is not None:
        notes.insert(0, caught[1])
    if scope is not None:
        across.annotate(store, results, scope.held)
        heads = refs.branch_heads(cat.path)  # once for all the labels
        whole = found.dense_coverage == 1.0  # then every label's is: no count a label
        by_label: dict[str, Freshness] = {}
        for st, held in zip(scope.states, scope.held, strict=True):
            by_label[st.label] = freshness.describe(s, cat, st, heads=heads)
            by_label[st.label]["dense_coverage"] = (
                1.0 if whole else searching.coverage(store, st.label_id, held=held)[0]
            )
        answer["freshness_by_label"] = by_label
    else:
        if not results and (filters.lang or filters.package or filters.paths):
            from monodex.indexer.read import filterhints

            filterhints.check(store, catalog=r.catalog, label=r.label, filters=filters)
        if fresh is None:
            fresh = freshness.describe(s, cat, labelmeta.require_label(store, cat.name, r.label))
        if fresh.get("problem"):  # the repository moved away: the answer may be stale, unknown how much
            notes.append(f"freshness cannot be checked: {fresh.get('problem')} ({fresh.get('hint')})")
        # next to the freshness: whether the label's dense vectors are all there yet (phase two),
        # and which worktree and commit the answer reflects
        shown: Freshness = {
            **fresh,
            "label": r.label,
            "dense_coverage": found.dense_coverage,
            "worktree": r.worktree,
            "commit": fresh["indexed_commit"],
        }
        answer["freshness"] = shown
        _where_you_stand(shown, notes, here, r, caught)
        if here is not None and here.detached and here.label() == r.label:
            notes.insert(0, f"detached HEAD at {str(here.commit)[:12]}: answered for that commit")
        if applied is not None:
            shown["overlay"] = applied.as_json()
            if applied.skipped:
                notes.append(f"uncommitted files not searched: {applied.skipped}")
    if served_by is not None:
        answer["served_by"] = served_by
        notes.insert(0, served_by["note"])
    if notes:
        answer["notes"] = notes
    if found.reading is not None:
        answer["query"] = found.reading
    if r.max_tokens is not None:
        answer["results"], answer["budget"] = budget.pack(results, r.max_tokens, s.engine.count_tokens)
    if applied is not None and applied.dense_pending and s.wake is None and found.mode != "lexical":
        _fill_overlay(s, applied.membership)
    return answer


def _where_you_stand(
    fresh: Freshness,
    notes: list[str],
    here: standing.Standing | None,
    r: rq.SearchRequest,
    caught: tuple[CaughtUp, str] | None,
) -> None:
    """The commit checked out where you stand next to the one the answer reflects: caught up to
    it (`caught_up`), or, with --as-indexed only, answered from the label as it was indexed."""
    if here is None or not here.commit or here.label() != r.label:
        return
    fresh["checkout_commit"] = here.commit
    if caught is not None:
        fresh["caught_up"] = caught[0]
    elif r.as_indexed and fresh.get("indexed_commit") != here.commit:
        fresh["as_indexed"] = True
        notes.insert(
            0,
            f"answered from {r.label} as indexed at {str(fresh.get('indexed_commit'))[:12]} "
            f"(--as-indexed): the commit checked out here is {here.commit[:12]}; results may hold "
            "code your checkout does not have, or miss code it has",
        )


def _fill_overlay(s: Session, membership: str) -> None:
    """With no runner to do it, this command gives the overlay's new chunks their vectors after
    answering (the model is loaded already): a round at most, so a search never waits long."""
    from monodex.indexer.write import fill

    fill.fill(s.store, s.engine, membership, rounds=1)


def _overlay(s: Session, r: rq.SearchRequest) -> Any:
    """The worktree's uncommitted files brought up to date for this search (write/overlay.py),
    or None: no worktree, or the branch as committed asked for."""
    if r.worktree is None or r.committed:
        return None
    from monodex.indexer.overlay import update as overlay

    s.store.info()  # the shard opened (a local search's own cost) before the overlay's is timed
    return overlay.apply(s, s.config().catalog(r.catalog), r.label, r.worktree)


def _generation(s: Session, catalog: str, label: str) -> tuple[Any, Any, ServedBy | None]:
    """(store, query embedder, served_by) for a search: after a model change the previous
    model's collection answers a label until the new one holds it fully hybrid."""
    from monodex.indexer.points import labelmeta
    from monodex.indexer.read import search as searching

    current = (s.store, LazyQueryEmbedder(s), None)
    previous = s.previous()
    if previous is None:
        return current
    lid = names.label_id(catalog, label)
    state = labelmeta.read(s.store, lid) if s.store.info() is not None else None
    covered = 0.0
    if state is not None and state.crawl_complete:
        covered, waiting, _ = searching.coverage(s.store, lid)
        if not waiting:
            return current
    old_store, old_engine = previous
    if labelmeta.read(old_store, lid) is None:
        return current
    note = (
        f"answered with the previous model's vectors ({old_engine.embedder_id}, collection "
        f"{s.cfg.qdrant.collection!r}) until the new model's are complete "
        f"({covered:.0%} of this label so far)"
    )
    return (
        old_store,
        old_engine,
        ServedBy(
            collection=s.cfg.qdrant.collection,
            embedder_id=old_engine.embedder_id,
            new_model_coverage=covered,
            note=note,
        ),
    )
