"""Chunks that join a search's candidates though neither list ranked them, or lift those that
did: the declarations of a name the question spells, a dependency update's manifests, the names a
prose page or a source file among the first hits points to, the files earlier commits with the
question's words touched, a translated module's file in the question's language. Each reads a
few payloads more than the two lists did; search.py fuses what they return."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from monodex.indexer.points import defined, lexical
from monodex.indexer.points import filters as stored
from monodex.indexer.question import query
from monodex.indexer.rank import candidates, kinds, named, pastwords
from monodex.indexer.rank import ranking as ranking_
from monodex.indexer.read import callnames, pagenames
from monodex.indexer.store.base import RRF_K, Filter, Match, MatchAny, Scored, Store
from monodex.indexer.translations import copies

from monodex.schema.payload import Key

# A question that spells a name asks for its declaration: the chunks defining it join the
# candidates even when neither list ranked them (`Json` in a repository where every file says
# json). A few per name: a name declared in more places than this is no one place.
DEFINERS = 8
DEFINERS_READ = 200  # of which the surest DEFINERS


def definers(
    store: Store, flt: Filter, q: query.Query, w: candidates.Weights, *, known: set[str]
) -> list[candidates.Candidate]:
    """The chunks of the searched labels whose `defines` holds a name the question spells, with
    no rank in either list (the definition signal scores them), less those already candidates."""
    if not w.symbol or not q.names:
        return []
    out: list[candidates.Candidate] = []
    for name in sorted(q.names)[:3]:
        for record in declarations(store, flt, name, DEFINERS_READ)[:DEFINERS]:
            if record.id not in known:
                known.add(record.id)
                out.append(candidates.Candidate(Scored(record.id, 0.0, record.payload), 0.0, None, None))
    return out


def declarations(store: Store, flt: Filter, name: str, read: int) -> list[Any]:
    """Up to `read` chunks whose `defines` holds `name`, the surest first: the scroll's order is
    the ids' (arbitrary), and of a name declared in many chunks (`value_t`, aliased in every
    class) the surest few are wanted, not the first few."""
    wanted = stored.narrowed(flt, Match(defined.DEFINES, defined.squash(name)))
    found = list(itertools.islice(store.scroll(wanted, batch=read), read))
    found.sort(key=lambda r: -named.sureness(r.payload, name))
    return found


def page_names(
    store: Store, flt: Filter, cands: list[candidates.Candidate], q: query.Query, *, known: set[str]
) -> list[candidates.Candidate]:
    """The declarations of the names a prose page among the first fused hits spells as code
    (pagenames.py): a candidate gains the page's share, one neither list ranked joins with it."""
    if not pagenames.WEIGHT or q.is_symbol:
        return []
    by_id = {c.hit.id: c for c in cands}
    out: list[candidates.Candidate] = []
    for page in sorted(cands, key=lambda c: -c.fused)[: pagenames.TOP]:
        if not kinds.is_prose(page.path, page.hit.payload.get(Key.LANG)):
            continue
        amount = pagenames.WEIGHT * page.fused
        for name in pagenames.names_in(str(page.hit.payload.get(Key.TEXT, "")))[: pagenames.NAMES]:
            for record in declarations(store, flt, name, 64)[: pagenames.DEFINERS]:
                lift(record, amount, "page-names", f"{page.path} names {name}", by_id, out, known)
    return out


def call_names(
    store: Store,
    flt: Filter,
    cands: list[candidates.Candidate],
    q: query.Query,
    text: str,
    *,
    known: set[str],
) -> list[candidates.Candidate]:
    """The declarations, in other files, of what the first fused source files call with a word of
    the question in its name (callnames.py): a candidate gains the caller's share, one neither
    list ranked joins with it. Only for a question: a change request's words are its files'."""
    if not callnames.WEIGHT or q.is_symbol or not q.question:
        return []
    words = callnames.question_words(text)
    by_id = {c.hit.id: c for c in cands}
    out: list[candidates.Candidate] = []
    callers: list[candidates.Candidate] = []
    for c in sorted(cands, key=lambda c: -c.fused):
        if len(callers) == callnames.TOP:
            break
        if (
            all(c.path != o.path for o in callers)
            and ranking_.role_of(c.path) == ranking_.SOURCE
            and not kinds.is_prose(c.path, c.hit.payload.get(Key.LANG))
        ):
            callers.append(c)
    for caller in callers:
        names = callnames.called(str(caller.hit.payload.get(Key.TEXT, "")), words)
        if not names:
            continue
        # one read for all of a caller's names: a search must stay within its latency
        wanted = stored.narrowed(flt, MatchAny(defined.DEFINES, tuple(defined.squash(n) for n in names)))
        found = list(itertools.islice(store.scroll(wanted, batch=callnames.READ), callnames.READ))
        amount = callnames.WEIGHT * caller.fused
        for name in names:
            sure = [(named.sureness(r.payload, name), r) for r in found]
            if len({r.payload.get(Key.RELATIVE_PATH) for how, r in sure if how}) > callnames.PLACES:
                continue  # every collection's `try_reserve`: no one place
            declaring = [
                r
                for how, r in sorted(sure, key=lambda pair: -pair[0])
                if how and r.payload.get(Key.RELATIVE_PATH) != caller.path
            ]
            for record in declaring[: callnames.DEFINERS]:
                lift(record, amount, "call-names", f"{caller.path} calls {name}", by_id, out, known)
    return out


def lift(
    record: Any,
    amount: float,
    signal: str,
    why: str,
    by_id: dict[str, candidates.Candidate],
    out: list[candidates.Candidate],
    known: set[str],
) -> None:
    """A candidate gains `amount`; a chunk no list ranked joins the candidates with it."""
    if record.id in by_id:
        by_id[record.id].add(signal, amount, why)
    elif record.id not in known:
        known.add(record.id)
        c = candidates.Candidate(Scored(record.id, amount, record.payload), amount, None, None)
        c.moved.append({"signal": signal, "change": round(amount, 6), "why": why})
        by_id[record.id] = c
        out.append(c)


# A dependency update's manifests: the lexical hits of the dependency's name among the files a
# manifest can be (package.json, Cargo.toml, pyproject.toml, go.mod, pom.xml, build.gradle), of
# which those declaring it join the candidates (named.apply_dependency scores them). Code and
# docs name a dependency far more often than the one line that declares it.
MANIFEST_LANGS = ("json", "toml", "cfg", "mod", "gradle", "xml")
MANIFESTS_READ = 50


def manifests(
    store: Store, flt: Filter, q: query.Query, w: candidates.Weights, *, known: set[str]
) -> list[candidates.Candidate]:
    """The manifest chunks of the searched labels declaring a package a dependency update names,
    less those already candidates (they join with no rank in either list)."""
    if not w.dependency or not q.dependencies:
        return []
    out: list[candidates.Candidate] = []
    wanted = stored.narrowed(flt, MatchAny(Key.LANG, MANIFEST_LANGS))
    for name in sorted(q.dependencies)[:3]:
        sparse = lexical.query_vector(name)
        if not sparse.indices:
            continue
        for hit in store.search_sparse(sparse, wanted, limit=MANIFESTS_READ):
            if hit.id in known or not named.manifest_declares(hit.payload, name):
                continue
            known.add(hit.id)
            out.append(candidates.Candidate(Scored(hit.id, 0.0, hit.payload), 0.0, None, None))
    return out


# Locale folders a search looks into for their stand-in: more is a search over translations of
# several modules, which one slot each already serves.
STAND_IN_FOLDERS = 4


def stand_ins(
    store: Store,
    flt: Filter,
    cands: list[candidates.Candidate],
    locale: str,
    dense: Sequence[float] | None,
    *,
    known: set[str],
) -> list[candidates.Candidate]:
    """The file in `locale` of each translated module a candidate belongs to, when neither list
    ranked it (ranking.rank lets it stand for its folder): the translations repeat a question's
    words in forty languages and crowd the original out of both pools (zod's `locales/en.ts`).
    It joins by its chunk nearest the query (any chunk in lexical mode), with no rank."""
    have = {c.path for c in cands}
    wanted: list[str] = []
    for c in cands:
        if (lang := copies.locale_of(c.path)) is None or lang[1] == locale:
            continue
        # the sibling in the same format: `el.ts` beside `en.ts`, `de.yml` beside `en.yml`
        path = copies.sibling_in(c.path, locale)
        if path is not None and path not in have and path not in wanted:
            wanted.append(path)
    wanted = wanted[:STAND_IN_FOLDERS]
    if not wanted:
        return []
    narrowed = stored.narrowed(flt, MatchAny(Key.RELATIVE_PATH, tuple(wanted)))
    found: list[tuple[str, Any]] = []
    if dense is not None:
        found = [(h.id, h.payload) for h in store.search(dense, narrowed, limit=4 * len(wanted))]
    if len({str(p.get(Key.RELATIVE_PATH)) for _, p in found}) < len(wanted):
        # lexical mode, or a file still waiting for its dense vectors: any of its chunks
        found += [(r.id, r.payload) for r in itertools.islice(store.scroll(narrowed, batch=64), 64)]
    out: list[candidates.Candidate] = []
    for point_id, payload in found:
        path = str(payload.get(Key.RELATIVE_PATH, ""))
        if path not in have and point_id not in known:
            have.add(path)
            known.add(point_id)
            out.append(candidates.Candidate(Scored(point_id, 0.0, payload), 0.0, None, None))
    return out


def past_words(
    store: Store,
    flt: Filter,
    text: str,
    history: object,
    w: candidates.Weights,
    cands: list[candidates.Candidate],
    dense: Sequence[float] | None,
    *,
    known: set[str],
) -> list[candidates.Candidate]:
    """The third list of a hybrid search: the files earlier commits with the query's words
    touched (rank/pastwords.py), each of its chunks among the candidates lifted, for a question
    as the other two lists are fused (weight / (k + rank)), for a change request by its score
    relative to the list's first; a listed file neither list found joins by its chunk nearest the
    query. Returns the chunks that joined."""
    q = query.read(text)
    request = q.may_be_change
    weight = w.past_words_request if request else w.past_words
    listed = pastwords.ranked(history, text, pastwords.FILES) if weight else []
    if not listed:
        return []
    # only the first FILES are read: a narrowed search over 30 files took 7.5 ms on rushstack,
    # over 10 2.2 ms; a file since deleted leaves its place empty
    have = {c.path for c in cands}
    missing = tuple(p.path for p in listed if p.path not in have)
    out: list[candidates.Candidate] = []
    if missing and dense is not None:
        wanted = stored.narrowed(flt, MatchAny(Key.RELATIVE_PATH, missing))
        for h in store.search(dense, wanted, limit=2 * len(missing)):
            path = str(h.payload.get(Key.RELATIVE_PATH, ""))
            if path not in have and h.id not in known:
                have.add(path)
                known.add(h.id)
                out.append(candidates.Candidate(h, 0.0, None, None))
    placed = [p for p in listed if p.path in have]
    by_path: dict[str, list[candidates.Candidate]] = {}
    for c in [*cands, *out]:
        by_path.setdefault(c.path, []).append(c)
    first = listed[0].score or 1.0
    for rank, past in enumerate(placed):
        lift = weight * past.score / first if request else weight / (RRF_K + rank)
        why = f"earlier commits with the query's words changed it ({past.commits} with one of them)"
        for c in by_path.get(past.path, []):
            c.fused += lift
            c.past_commits = past.commits
            c.add("past-words", lift, why)
    return out
