"""`monodex eval`'s answer (indexer/evaluate/): each system's figures per half of the split, per
kind of question and, when asked, per question."""

from __future__ import annotations

from typing import NotRequired, TypedDict


class Figures(TypedDict):
    questions: int
    recall_at_10: float | None
    mrr_at_10: float | None
    ndcg_at_10: float | None
    # scored on the answers' lines, over the questions that give them (a hand-written file's
    # "lines"); a mode's figure only: the BM25 baseline ranks whole files
    ndcg_at_10_lines: NotRequired[float]
    questions_with_lines: NotRequired[int]


class Questions(TypedDict):
    source: str
    total: int
    tune: int
    test: int
    kinds: dict[str, int]
    skipped: dict[str, int]
    commits_read: int
    relevant_dropped: int


class HistorySignal(TypedDict):
    how: str  # off | full | as-of
    note: str


class Placed(TypedDict):
    """One question's ranks in one system, and its figures."""

    ranks: dict[str, int | None]
    recall_at_10: float
    mrr_at_10: float
    ndcg_at_10: float
    ndcg_at_10_lines: NotRequired[float]


class Asked(TypedDict):
    id: str
    query: str
    split: str
    kind: str | None
    origin: str | None
    relevant: list[str]
    systems: dict[str, Placed]


class Scores(TypedDict):
    results: dict[str, dict[str, Figures]]  # system -> half -> figures
    by_kind: dict[str, dict[str, Figures]]  # kind -> system -> figures
    per_query: NotRequired[list[Asked]]


class FigureChange(TypedDict):
    """One figure in an earlier run and now (`eval --against`); None where either has none."""

    before: float | None
    after: float | None
    change: float | None


class Moved(TypedDict):
    """A question whose nDCG@10 moved since the earlier run."""

    id: str
    query: str
    split: str
    before: float
    after: float


class QuestionMoves(TypedDict):
    system: str  # whose nDCG@10 is compared: the first system both runs scored
    compared: int  # questions both runs asked, by id and text
    better: list[Moved]  # most improved first
    worse: list[Moved]  # most worsened first
    only_now: int
    only_before: int


class Against(TypedDict):
    """This run beside an earlier one's saved `--json` output (indexer/evaluate/against.py)."""

    source: str  # the earlier run's file name
    catalog: str
    label: str
    commit: str
    figures: dict[str, dict[str, dict[str, FigureChange]]]  # system -> half -> figure -> change
    questions: NotRequired[QuestionMoves]  # when both runs list their questions
    notes: list[str]


class Tuning(TypedDict):
    """The catalog's search tuning the run ranked with (config.json `catalogs.*.search`)."""

    lexical_weight: float
    history_weight: float


class EvalAnswer(TypedDict):
    catalog: str
    label: str
    commit: str
    questions: Questions
    tuning: Tuning
    split: str
    systems: list[str]
    history_signal: HistorySignal
    results: dict[str, dict[str, Figures]]
    by_kind: dict[str, dict[str, Figures]]
    per_query: NotRequired[list[Asked]]
    notes: list[str]
    seconds: float


class ComparedAnswer(EvalAnswer):
    """`monodex eval --against FILE`'s answer: the run, and its change since the earlier one."""

    against: Against
