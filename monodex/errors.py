"""The one error vocabulary: what went wrong and what to do next."""

from __future__ import annotations


class MonodexError(Exception):
    """A runtime failure the user can act on (exit 1)."""

    exit_code = 1

    def __init__(self, problem: str, hint: str = "") -> None:
        super().__init__(problem)
        self.problem = problem
        self.hint = hint

    def render(self) -> str:
        return f"error: {self.problem}" + (f"\nhint: {self.hint}" if self.hint else "")


class UsageError(MonodexError):
    """Bad input: a flag, a name, a config value (exit 2)."""

    exit_code = 2


class Interrupted(MonodexError):
    """A crawl was asked to stop; the label stays incomplete and the next crawl resumes."""
