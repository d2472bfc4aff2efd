"""Questions from a repository's own history: walking the first-parent line back from a commit,
each change that landed is a question (a pull request's title, else the commit's subject) whose
answers are the files it changed that the label indexes. Deterministic: the same commit gives the
same questions in the same order, newest first.

Changes that name no behaviour a search could find are skipped, each under a reason: reverts,
merges of branches, dependency and version bumps, releases, bulk changes (more indexed files than
the history signal counts, history.MAX_FILES), changes whose answer is more than MAX_ANSWERS
files, titles of fewer than three words, and changes whose
files are not indexed (or only tests, changelogs and the like: a search ranks them after the code
on purpose, so they are not what a question asks for).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from monodex.indexer.evaluate.metrics import Spans
from monodex.indexer.history import subjects
from monodex.indexer.history.changed import MAX_FILES

from monodex.git import log as gitlog

# "Merge pull request #12 from owner/branch": GitHub's merge commit; the title is the body's first line.
MERGED_PR = re.compile(r"^Merge pull request #(\d+) from \S")
# "Add retry (#12)": a squash-merged pull request (GitHub and others append the number).
SQUASHED_PR = re.compile(r"\s*\(#(\d+)\)\s*$")
MIN_WORDS = 3
# A change whose answer is more files than a first page of results holds asks no one place: R@10
# could not reach 1 for it, and a set of such questions measures the page size, not the ranking.
MAX_ANSWERS = 10


def split_of(question_id: str) -> str:
    """`tune` or `test`, by a hash of the question's id alone: stable across runs, as history
    grows and whatever else the set holds. Tune on one half, report the other."""
    return "test" if hashlib.sha256(question_id.encode()).digest()[0] < 128 else "tune"


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    relevant: tuple[str, ...]
    kind: str | None = None
    commit: str | None = None  # the change it came from: ranked with the history before it
    date: str | None = None  # that change's committer date (UTC)
    origin: str = ""  # "#123 0123456789" or the short commit
    lines: Spans | None = None  # a hand-written question's answer lines, for the figure on lines

    @property
    def split(self) -> str:
        return split_of(self.id)


@dataclass(frozen=True)
class Landed:
    """One commit of the first-parent line: what landed, with the files it changed."""

    oid: str
    stamp: int
    parents: tuple[str, ...]
    subject: str
    body: str
    files: tuple[str, ...]


@dataclass
class Built:
    questions: list[Question] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    walked: int = 0  # first-parent commits read
    pull_requests: int = 0  # questions from pull requests (the rest from commit subjects)


def pull_request(subject: str, body: str) -> tuple[int, str] | None:
    """(number, title) of a merged or squash-merged pull request, None for another commit."""
    merged = MERGED_PR.match(subject)
    if merged:
        title = next((ln.strip() for ln in body.splitlines() if ln.strip()), "")
        return int(merged.group(1)), title
    squashed = SQUASHED_PR.search(subject)
    if squashed:
        return int(squashed.group(1)), subject[: squashed.start()].strip()
    return None


def skip_reason(title: str) -> str | None:
    """Why a title asks nothing a search could answer, or None."""
    reason = subjects.routine(title)
    if reason is not None:
        return reason
    return "short title" if len(title.split()) < MIN_WORDS else None


def first_parent(repo: Path, commit: str, *, max_commits: int) -> Iterator[Landed]:
    """The first-parent line from `commit` back, newest first, each commit with the files it
    changed against its first parent (a merge: what the merge brought in)."""
    fmt = "%x00%H%x1f%ct%x1f%P%x1f%s%x1f%b%x1e"
    out = gitlog.first_parent(repo, commit, max_commits=max_commits, fmt=fmt)
    for record in out.decode("utf-8", "replace").split("\0")[1:]:
        head, _, names = record.partition("\x1e")
        oid, stamp, parents, subject, body = head.split("\x1f", 4)
        files = tuple(n for n in names.splitlines() if n)
        yield Landed(oid, int(stamp), tuple(parents.split()), subject, body, files)


def from_history(
    changes: Iterator[Landed],
    *,
    indexed: Collection[str],
    is_answer: Callable[[str], bool],
    limit: int,
) -> Built:
    """Up to `limit` questions, newest first, from `changes` (first_parent's order)."""
    built = Built()
    seen: set[str] = set()
    for c in changes:
        built.walked += 1
        question = _question(c, indexed, is_answer)
        if isinstance(question, str):
            built.skipped[question] += 1
        elif question.id in seen:  # a number cited again (a cherry-pick): the newest one counts
            built.skipped["duplicate"] += 1
        else:
            seen.add(question.id)
            built.questions.append(question)
            built.pull_requests += question.id.startswith("pr-")
            if len(built.questions) == limit:
                break
    return built


def _question(c: Landed, indexed: Collection[str], is_answer: Callable[[str], bool]) -> Question | str:
    """The change's question, or why it gives none."""
    pr = pull_request(c.subject, c.body)
    if pr is None and len(c.parents) > 1:
        return "merge"  # a branch merged in: its own commits said what they did
    title = pr[1] if pr is not None else c.subject.strip()
    reason = skip_reason(title)
    if reason is not None:
        return reason
    touched = [f for f in c.files if f in indexed]
    if len(touched) > MAX_FILES:
        return "bulk change"
    relevant = tuple(sorted(f for f in touched if is_answer(f)))
    if not relevant:
        return "no indexed source file"
    if len(relevant) > MAX_ANSWERS:
        return "wide change"
    date = datetime.fromtimestamp(c.stamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if pr is None:
        return Question(c.oid, title, relevant, commit=c.oid, date=date, origin=c.oid[:10])
    return Question(f"pr-{pr[0]}", title, relevant, commit=c.oid, date=date, origin=f"#{pr[0]} {c.oid[:10]}")
