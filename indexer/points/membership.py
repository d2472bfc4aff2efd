"""Every read of label membership, in one place: which labels hold a chunk, and the conditions
that select the chunks of a label, of any of several labels, or of one label and not another.

A label is a *base* plus what it *changed* (issue 25, docs/architecture.md "What a label is"):
- The base is a key in chunk payloads (`active_label_ids`), written once for every file of one
  commit and never changed after: other labels may stand on it.
- `changed` maps each path where the label differs from its base to the file id it holds there
  ("" for none). It lives in a delta point the label metadata names, so moving a label writes
  one small point and flips the metadata: O(change), atomic, and no chunk payload is rewritten.
A label is "the base's chunks outside the changed paths, plus the changed files' chunks". When
`changed` grows past a share of the base, the label gets a base of its own (members/derive.py).

Labels from before issue 25 (and working-directory labels, which change in place) have no
membership fields: their base key is their label id and nothing changed, exactly the old
meaning of `active_label_ids`, so an existing index migrates without a write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from monodex.indexer.points.identity import label_point_id, string_to_uuid
from monodex.indexer.store.base import Condition, Filter, IsEmpty, Match, MatchAny, Point, Store

from monodex.schema.payload import Key

# payload_keys for a scroll that reads membership (see Held.holds)
KEYS: tuple[str, ...] = (Key.ACTIVE_LABEL_IDS, Key.FILE_ID, Key.RELATIVE_PATH)

# Label metadata fields (points/labelmeta.py writes them among its extras): the base key, the
# commit the base holds, the files it holds (the rebase threshold scales with it), the policy and
# implementation it was built with, the delta point's id ("" when nothing changed) and how many
# paths the delta holds (status, benchmarks).
FIELDS = (
    Key.MEMBERSHIP_BASE,
    Key.MEMBERSHIP_BASE_COMMIT,
    Key.MEMBERSHIP_BASE_FILES,
    Key.MEMBERSHIP_BASE_FACTS,
    Key.MEMBERSHIP_DELTA,
    Key.MEMBERSHIP_CHANGED,
)

LABEL_DELTA = "label-delta"  # source_type of a delta point


@dataclass(frozen=True)
class Held:
    """How one label's chunks are found: its base key, and the paths where it differs."""

    label_id: str
    base: str
    changed: Mapping[str, str] = field(default_factory=dict)

    @cached_property
    def files(self) -> frozenset[str]:
        """The file ids the label holds over its base (read once a label: a search of many
        labels asks for every hit)."""
        return frozenset(f for f in self.changed.values() if f)

    def condition(self) -> Condition:
        in_base = Match(Key.ACTIVE_LABEL_IDS, self.base)
        if not self.changed:
            return in_base
        kept = Filter(must=(in_base,), must_not=(MatchAny(Key.RELATIVE_PATH, tuple(sorted(self.changed))),))
        own = tuple(sorted(self.files))
        return Filter(should=(kept, MatchAny(Key.FILE_ID, own))) if own else kept

    def holds(self, payload: Mapping[str, Any]) -> bool:
        """Whether a chunk (its payload read with KEYS) belongs to the label."""
        if str(payload.get(Key.FILE_ID, "")) in self.files:
            return True
        return self.base in keys_of(payload) and str(payload.get(Key.RELATIVE_PATH, "")) not in self.changed


def keys_of(payload: Mapping[str, Any]) -> list[str]:
    """The base keys (and in-place labels, overlays) a chunk's payload carries."""
    return [str(x) for x in payload.get(Key.ACTIVE_LABEL_IDS) or ()]


def delta_point_id(label_id: str, stamp: str) -> str:
    return string_to_uuid(f"{label_id}#delta#{stamp}")


def from_metadata(label_id: str, meta: Mapping[str, Any] | None, store: Store) -> Held:
    """A label's membership from its metadata payload (None: a label nobody described, such as an
    overlay generation: its own key)."""
    return many_from_metadata([(label_id, meta)], store)[0]


def many_from_metadata(labels: Sequence[tuple[str, Mapping[str, Any] | None]], store: Store) -> list[Held]:
    """from_metadata of several labels, their delta points read in one request (a search of 100
    labels read them one by one: 100 requests)."""
    wanted = [
        str(meta.get(Key.MEMBERSHIP_DELTA) or "") if meta and meta.get(Key.MEMBERSHIP_BASE) else ""
        for _, meta in labels
    ]
    found = {r.id: r.payload for r in store.retrieve(sorted({d for d in wanted if d}))}
    out = []
    for (label_id, meta), delta in zip(labels, wanted, strict=True):
        if not meta or not meta.get(Key.MEMBERSHIP_BASE):
            out.append(Held(label_id, label_id))
            continue
        p = found.get(delta) or {}
        changed = dict(
            zip(
                (str(x) for x in p.get(Key.PATHS) or ()),
                (str(x) for x in p.get(Key.FILES) or ()),
                strict=False,
            )
        )
        out.append(Held(label_id, str(meta[Key.MEMBERSHIP_BASE]), changed))
    return out


def of(store: Store, label_id: str) -> Held:
    """The label's membership as stored now."""
    return of_all(store, [label_id])[0]


def bases(states: Iterable[Any]) -> set[str]:
    """The base keys these labels (their LabelStates) stand on: a key no label names is dead."""
    return {str(st.extra.get(Key.MEMBERSHIP_BASE) or st.label_id) for st in states}


def of_all(store: Store, label_ids: Iterable[str]) -> list[Held]:
    """Several labels' membership as stored now (each label once), in two requests."""
    ids = list(dict.fromkeys(label_ids))
    metas = {r.id: r.payload for r in store.retrieve([label_point_id(lid) for lid in ids])}
    return many_from_metadata([(lid, metas.get(label_point_id(lid))) for lid in ids], store)


def delta_point(catalog: str, label_id: str, stamp: str, changed: Mapping[str, str], dim: int) -> Point:
    paths = sorted(changed)
    payload = {
        Key.SOURCE_TYPE: LABEL_DELTA,
        Key.CATALOG: catalog,
        Key.LABEL_ID: label_id,
        Key.PATHS: paths,
        Key.FILES: [changed[p] for p in paths],
    }
    # A zero dense vector and no sparse one, as label metadata: never ranks as content.
    return Point(id=delta_point_id(label_id, stamp), payload=payload, dense=[0.0] * dim)


def deltas(store: Store) -> dict[str, list[str]]:
    """Every delta point: {point id: the file ids it holds}."""
    flt = Filter(must=(Match(Key.SOURCE_TYPE, LABEL_DELTA),))
    return {
        r.id: [str(f) for f in r.payload.get(Key.FILES) or () if f]
        for r in store.scroll(flt, payload_keys=(Key.FILES,))
    }


def changed_files(store: Store, retiring: str = "") -> set[str]:
    """File ids some label holds over its base: never deleted for carrying no key (every delta
    point counts, even one a crash left unnamed: gc removes those first), except `retiring`: the
    delta point a label let go, whose files are released before the point itself is deleted."""
    return {f for i, files in deltas(store).items() if i != retiring for f in files}


def labels_of(payload: Mapping[str, Any], held: Sequence[Held]) -> list[str]:
    """The label ids among `held` holding this chunk (its payload read with KEYS)."""
    return [h.label_id for h in held if h.holds(payload)]


def held_by(held: Held) -> Condition:
    """A chunk of this label."""
    return held.condition()


def held_by_any(held: Sequence[Held]) -> Condition:
    """A chunk of at least one of these labels."""
    if len(held) == 1:
        return held[0].condition()
    plain = [h.base for h in held if not h.changed]
    conds: list[Condition] = [h.condition() for h in held if h.changed]
    if plain:
        conds.append(
            Match(Key.ACTIVE_LABEL_IDS, plain[0])
            if len(plain) == 1
            else MatchAny(Key.ACTIVE_LABEL_IDS, tuple(dict.fromkeys(plain)))
        )
    return conds[0] if len(conds) == 1 else Filter(should=tuple(conds))


def held_by_none(kept: Iterable[str] = ()) -> Condition:
    """A chunk no label holds: no key, and not one of the files labels hold over their bases
    (`kept`: changed_files) (orphans)."""
    own = sorted(set(kept))
    if not own:
        return IsEmpty(Key.ACTIVE_LABEL_IDS)
    return Filter(must=(IsEmpty(Key.ACTIVE_LABEL_IDS),), must_not=(MatchAny(Key.FILE_ID, tuple(own)),))
