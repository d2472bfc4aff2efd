"""`monodex eval`'s answer as text: a table of every system's figures per half, per kind, and
each question's places when asked for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from monodex.observe.output import sanitize
from monodex.schema.eval import Against, ComparedAnswer, EvalAnswer, FigureChange, Figures, Moved, Tuning

FIGURES = (("recall_at_10", "R@10"), ("mrr_at_10", "MRR@10"), ("ndcg_at_10", "nDCG@10"))
NAMES = {"bm25": "bm25 (files)"}  # the baseline says what it ranks
DEFAULT_TUNING: Tuning = {"lexical_weight": 1.0, "history_weight": 1.0}


def text(r: EvalAnswer) -> str:
    q = r["questions"]
    lines = [
        f"{r['catalog']} {r['label']} at {(r['commit'] or '(working dir)')[:12]}: {q['total']} questions "
        f"({sanitize(q['source'])}; tune {q['tune']}, test {q['test']})",
    ]
    if q["skipped"]:
        read = q["commits_read"] or q["total"] + sum(q["skipped"].values())  # the file's questions
        of = f" of {read} {'commits read' if q['commits_read'] else 'questions'}"
        skipped = ", ".join(f"{why} {n}" for why, n in q["skipped"].items())
        lines.append(f"skipped {sum(q['skipped'].values())}{of}: {skipped}")
    if q["relevant_dropped"]:
        lines.append(f"relevant paths not indexed in this label, dropped: {q['relevant_dropped']}")
    lines.append(f"history (co-change and past words): {r['history_signal']['note']}")
    if (t := r["tuning"]) != DEFAULT_TUNING:
        lines.append(f"search tuning: {_tuning(t)} (the default: {_tuning(DEFAULT_TUNING)})")
    lines += ["", *_table(r)]
    if r["by_kind"]:
        lines += ["", *_kinds(r)]
    if r.get("per_query"):
        lines += ["", *_per_query(r)]
    if "against" in r:
        lines += ["", *_against(cast("ComparedAnswer", r)["against"])]
    lines += [f"note: {sanitize(n)}" for n in r["notes"]]
    lines.append(f"({r['seconds']} s)")
    return "\n".join(lines)


def _table(r: EvalAnswer) -> list[str]:
    halves = list(next(iter(r["results"].values())))
    first = next(iter(r["results"].values()))
    width = max(len(NAMES.get(s, s)) for s in r["systems"]) + 2
    group = "  ".join(f"{h} ({first[h]['questions']})".ljust(23) for h in halves)
    heads = "  ".join(" ".join(f"{label:>7}" for _, label in FIGURES) for _ in halves)
    rows = [" " * width + group.rstrip(), "system".ljust(width) + heads]
    for system in r["systems"]:
        cells = "  ".join(_cells(r["results"][system][h]) for h in halves)
        rows.append(NAMES.get(system, system).ljust(width) + cells)
    return rows + _on_lines(r, halves)


def _on_lines(r: EvalAnswer, halves: list[str]) -> list[str]:
    """nDCG@10 scored on the answers' lines, for the questions that give them: a result counts
    when the lines it shows overlap the answer's (the BM25 baseline ranks whole files: -)."""
    rows = []
    for h in halves:
        given = [r["results"][s][h] for s in r["systems"] if "ndcg_at_10_lines" in r["results"][s][h]]
        if not given:
            continue
        cells = ", ".join(f"{NAMES.get(s, s)} {_on_lines_cell(r['results'][s][h])}" for s in r["systems"])
        n = given[0].get("questions_with_lines", 0)
        rows.append(f"nDCG@10 on the answers' lines, {h} ({n} questions): {cells}")
    return [""] + rows if rows else []


def _cells(figures: Figures) -> str:
    shown: Mapping[str, object] = figures
    return " ".join(f"{'-' if shown[k] is None else format(shown[k], '.3f'):>7}" for k, _ in FIGURES)


def _kinds(r: EvalAnswer) -> list[str]:
    """nDCG@10 of each system per kind of question (the figure hand-written sets are read by)."""
    on_lines = [
        (kind, systems)
        for kind, systems in r["by_kind"].items()
        if "ndcg_at_10_lines" in systems[r["systems"][0]]
    ]
    width = max(max(len(k) for k in r["by_kind"]) + 8, 23 if on_lines else 0)
    heads = "".join(f"{NAMES.get(s, s):>14}" for s in r["systems"])
    rows = ["nDCG@10 by kind".ljust(width) + heads]
    for kind, systems in r["by_kind"].items():
        n = next(iter(systems.values()))["questions"]
        cells = "".join(f"{systems[s]['ndcg_at_10']:>14.3f}" for s in r["systems"])
        rows.append(f"{sanitize(kind)} ({n})".ljust(width) + cells)
    if on_lines:
        rows.append("on the answers' lines".ljust(width) + heads)
    for kind, systems in on_lines:
        n = systems[r["systems"][0]].get("questions_with_lines", 0)
        cells = "".join(f"{_on_lines_cell(systems[s]):>14}" for s in r["systems"])
        rows.append(f"{sanitize(kind)} ({n})".ljust(width) + cells)
    return rows


def _on_lines_cell(f: Figures) -> str:
    return format(f["ndcg_at_10_lines"], ".3f") if "ndcg_at_10_lines" in f else "-"


def _per_query(r: EvalAnswer) -> list[str]:
    rows = ["each question: the best place of a relevant file per system (- : not in the first 10)"]
    for q in r["per_query"]:
        places = []
        for system in r["systems"]:
            found = [p for p in q["systems"][system]["ranks"].values() if p is not None]
            places.append(f"{system} {min(found) if found else '-'}")
        rows.append(f"  {q['split']:<4}  {q['id'][:12]:<12}  {'  '.join(places)}  {sanitize(q['query'])}")
    return rows


# Questions that moved, listed each way in the text (--json lists them all).
MOVED_SHOWN = 10


def _against(a: Against) -> list[str]:
    """The change of every figure since the earlier run, and the questions that moved."""
    commit = a["commit"][:12] or "(working dir)"
    lines = [f"since {sanitize(a['source'])} ({sanitize(a['catalog'])} {sanitize(a['label'])} at {commit}):"]
    halves = list(dict.fromkeys(h for per_half in a["figures"].values() for h in per_half))
    if halves:
        width = max(len(NAMES.get(s, s)) for s in a["figures"]) + 2
        lines.append(" " * width + "  ".join(h.ljust(23) for h in halves).rstrip())
        lines.append(
            "system".ljust(width) + "  ".join(" ".join(f"{x:>7}" for _, x in FIGURES) for _ in halves)
        )
        for system, per_half in a["figures"].items():
            cells = "  ".join(_changes(per_half.get(h)) for h in halves)
            lines.append(NAMES.get(system, system).ljust(width) + cells)
    if (q := a.get("questions")) is not None:
        equal = q["compared"] - len(q["better"]) - len(q["worse"])
        lines.append(
            f"questions ({q['system']} nDCG@10, {q['compared']} asked by both): {len(q['better'])} better, "
            f"{len(q['worse'])} worse, {equal} equal"
            + (f"; new or reworded {q['only_now']}" if q["only_now"] else "")
            + (f"; gone {q['only_before']}" if q["only_before"] else "")
        )
        lines += [_moved("better", m) for m in q["better"][:MOVED_SHOWN]]
        lines += [_moved("worse", m) for m in q["worse"][:MOVED_SHOWN]]
    lines += [f"note: {sanitize(n)}" for n in a["notes"]]
    return lines


def _tuning(t: Tuning) -> str:
    return f"lexical_weight {t['lexical_weight']:g}, history_weight {t['history_weight']:g}"


def _changes(changes: Mapping[str, FigureChange] | None) -> str:
    """One half's cells: each figure's change, signed (- where a run has no such figure)."""
    signed = [None if changes is None else changes[k]["change"] for k, _ in FIGURES]
    return " ".join(f"{'-' if c is None else format(c, '+.3f'):>7}" for c in signed)


def _moved(how: str, m: Moved) -> str:
    moved = f"{m['before']:.3f} -> {m['after']:.3f}"
    return f"  {how:<6}  {m['split']:<4}  {m['id'][:12]:<12}  {moved}  {sanitize(m['query'])}"
