"""Measuring search on a label (`monodex eval`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from monodex.requests import questionfile
from monodex.requests.fields import MODES, Asks, FieldError, at_least, check_names, one_of, set_field, weight
from monodex.schema.eval import EvalAnswer

SPLITS = ("both", "tune", "test", "all")
DEFAULT_EVAL_QUESTIONS = 300
DEFAULT_EVAL_COMMITS = 10_000


@dataclass(frozen=True)
class EvalRequest(Asks[EvalAnswer]):
    """Score search on one label (`monodex eval`): questions from the label's own history (or
    `questions`, a hand-written set as questionfile.read gives it), each ranked in every mode of
    `modes` and by a plain BM25 over the same files. `split`: both halves side by side, one of
    them, or all questions as one set."""

    OP: ClassVar[str] = "eval"
    WRITES: ClassVar[bool] = False

    catalog: str
    label: str
    modes: tuple[str, ...] = MODES
    split: str = "both"
    limit_questions: int = DEFAULT_EVAL_QUESTIONS  # the newest questions from history
    max_commits: int = DEFAULT_EVAL_COMMITS  # first-parent commits read back from the label's
    questions: dict[str, Any] | None = None  # {"source": file name, "queries": [...]}
    per_query: bool = False  # each question's ranks in the answer
    # this run's search tuning instead of the catalog's (config.json `catalogs.*.search`): try a
    # weight, compare with --against, then write it to the config
    lexical_weight: float | None = None
    history_weight: float | None = None

    def __post_init__(self) -> None:
        check_names(self.catalog, self.label)
        if not self.modes:
            raise FieldError("modes", "{name} is empty", example="hybrid")
        for mode in self.modes:
            one_of("modes", mode, MODES)
        set_field(self, "modes", tuple(m for m in MODES if m in self.modes))  # one order, each once
        one_of("split", self.split, SPLITS)
        at_least("limit_questions", self.limit_questions, 1, str(DEFAULT_EVAL_QUESTIONS))
        at_least("max_commits", self.max_commits, 1, str(DEFAULT_EVAL_COMMITS))
        weight("lexical_weight", self.lexical_weight, "1.5")
        weight("history_weight", self.history_weight, "0.5")
        if self.questions is not None:
            source = str(self.questions.get("source") or "questions")
            queries = questionfile.check(self.questions.get("queries"), source)
            set_field(self, "questions", {"source": source, "queries": queries})
