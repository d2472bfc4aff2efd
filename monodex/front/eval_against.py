"""`monodex eval --against FILE`: today's figures beside an earlier run's (its `--json` output),
so a config or policy change is judged by what it moved: each figure's change per system and half
and, when both runs list their questions (`--per-query`), which questions got better or worse.

Stdlib only, and on the client: the earlier run is a file the user saved, not something the
runner holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from monodex.errors import UsageError
from monodex.schema.eval import Against, Asked, EvalAnswer, FigureChange, Moved, QuestionMoves

FIGURES = ("recall_at_10", "mrr_at_10", "ndcg_at_10")
SAVE = "monodex eval --json --per-query > before.json"
# A question's nDCG@10 has to move more than float noise to count as moved.
EPSILON = 1e-9


def read(path: Path) -> EvalAnswer:
    """The earlier run saved in `path`, checked to be `monodex eval --json` output."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"cannot read the earlier run {path}: {e}", f"save one first: {SAVE}") from e
    try:
        earlier = json.loads(text)
    except json.JSONDecodeError as e:
        raise UsageError(
            f"{path} is not JSON ({e.msg}, line {e.lineno})",
            f"give the output of 'monodex eval --json', saved as: {SAVE}",
        ) from e
    missing = [
        k
        for k in ("catalog", "label", "systems", "results")
        if not isinstance(earlier, dict) or k not in earlier
    ]
    if missing or not isinstance(earlier["results"], dict) or not isinstance(earlier["systems"], list):
        raise UsageError(
            f"{path} is not the output of 'monodex eval --json' (no {', '.join(missing) or 'results'})",
            f"save a run with: {SAVE}",
        )
    return cast("EvalAnswer", earlier)


def compare(earlier: EvalAnswer, now: EvalAnswer, source: str) -> Against:
    """What changed from `earlier` to `now`: the figures of every system and half both have, and
    the questions both list (by id) whose nDCG@10 moved, for the first system both scored."""
    systems = [s for s in now["systems"] if isinstance(earlier["results"].get(s), dict)]
    figures: dict[str, dict[str, dict[str, FigureChange]]] = {}
    for system in systems:
        halves = [h for h in now["results"][system] if h in earlier["results"][system]]
        figures[system] = {
            h: {
                f: _change(_figure(earlier["results"][system][h], f), _figure(now["results"][system][h], f))
                for f in FIGURES
            }
            for h in halves
        }
    notes: list[str] = []
    if (earlier["catalog"], earlier["label"]) != (now["catalog"], now["label"]):
        notes.append(
            f"the earlier run asked {earlier['catalog']} {earlier['label']}, this one "
            f"{now['catalog']} {now['label']}: the figures are of different questions"
        )
    elif earlier.get("commit") != now.get("commit"):
        notes.append(
            f"the label moved since the earlier run ({str(earlier.get('commit'))[:12]} -> "
            f"{str(now.get('commit'))[:12]}): newer changes add questions and retire old ones"
        )
    then, now_tuning = earlier.get("tuning"), now.get("tuning")
    if isinstance(then, dict) and then != now_tuning:
        notes.append(f"the search tuning changed: {_tuning(then)} then, {_tuning(now_tuning)} now")
    if unscored := [s for s in now["systems"] if s not in systems]:
        notes.append(f"the earlier run did not score {', '.join(unscored)}: no change to show for it")
    out: Against = {
        "source": source,
        "catalog": str(earlier["catalog"]),
        "label": str(earlier["label"]),
        "commit": str(earlier.get("commit") or ""),
        "figures": figures,
        "notes": notes,
    }
    before_rows, now_rows = earlier.get("per_query"), now.get("per_query")
    if not systems:
        notes.append("the two runs scored no system in common")
    elif not isinstance(before_rows, list):
        notes.append(f"the earlier run does not list its questions: figures only (save runs with: {SAVE})")
    elif now_rows is not None:
        out["questions"] = _questions(before_rows, now_rows, systems[0])
    return out


def _tuning(t: Any) -> str:
    t = t if isinstance(t, dict) else {}
    return ", ".join(f"{k} {t.get(k, '?')}" for k in ("lexical_weight", "history_weight"))


def _figure(figures: Any, name: str) -> float | None:
    value = figures.get(name) if isinstance(figures, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _change(before: float | None, after: float | None) -> FigureChange:
    change = None if before is None or after is None else round(after - before, 4)
    return {"before": before, "after": after, "change": change}


def _questions(earlier: list[Any], now: list[Asked], system: str) -> QuestionMoves:
    """Each question both runs asked (same id, same text) and scored in `system`, by nDCG@10."""
    before = {
        str(q["id"]): q
        for q in earlier
        if isinstance(q, dict) and "id" in q and isinstance(q.get("systems"), dict) and system in q["systems"]
    }
    better: list[Moved] = []
    worse: list[Moved] = []
    compared = 0
    for q in now:
        old = before.get(q["id"])
        if old is None or old.get("query") != q["query"] or system not in q["systems"]:
            continue
        was = _figure(old["systems"][system], "ndcg_at_10")
        if was is None:
            continue
        compared += 1
        is_ = q["systems"][system]["ndcg_at_10"]
        if abs(is_ - was) <= EPSILON:
            continue
        moved: Moved = {"id": q["id"], "query": q["query"], "split": q["split"], "before": was, "after": is_}
        (better if is_ > was else worse).append(moved)
    better.sort(key=lambda m: (m["before"] - m["after"], m["id"]))
    worse.sort(key=lambda m: (m["after"] - m["before"], m["id"]))
    return {
        "system": system,
        "compared": compared,
        "better": better,
        "worse": worse,
        "only_now": len(now) - compared,  # new questions, or reworded ones
        "only_before": len(before.keys() - {q["id"] for q in now}),
    }
