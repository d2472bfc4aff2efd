"""Which files changed together, counted per catalog in SQLite (issue 14's history signal):
`files(path, n)` commits that touched a file, `pairs(a, b, n)` commits that touched both (a < b),
and `words(term, path, n)` commits whose subject has the word and touched the file (issue 34's
past-words list, rank/pastwords.py), and `changes(at, files)` the files of the newest WINDOW
changes (rank/edited.py: a page most changes edit, as a changelog written with each change).

Only paths, counts and 32-bit hashes of subject words: no commit message, author or date. Every
commit is counted once (`seen`), whichever label's refresh reached it first, so a catalog's
branches share one history. The counts only grow; a deleted file keeps its rows and is simply
never asked about.
"""

from __future__ import annotations

import heapq
import sqlite3
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

TIPS = 32  # commits already walked from: the next walk stops where they start
# What the tables hold: counts kept under another schema start over (as under another crawl
# policy), and the next refresh counts the whole history again (seconds: catchup.py).
# 2, 3: subject words (issue 34), with their file's commit count. 4: a file moved away and back
# counted once, not twice (counts of 3 may be doubled). 5: the newest changes' files.
SCHEMA = "5"
# The newest changes whose files are kept as they are: enough that one page's share of them is a
# rate (a changelog jsoup's changes edit: 58% of 200), few enough to read in a search (~0.3 ms).
# A routine commit (a release, a bump: history/subjects.py) is not one of them: farm's release
# commits rewrite its changelogs, none of its changes does.
WINDOW = 200
# Each word row carries its file's commit count (`of`, BM25's document length): a search reads
# its terms' rows alone, no join with `files` (2.4 -> 1.1 ms on rushstack's PR titles).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS seen (oid TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS tips (oid TEXT PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pairs (a TEXT NOT NULL, b TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (a, b)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS pairs_b ON pairs (b);
CREATE TABLE IF NOT EXISTS words (term INTEGER NOT NULL, path TEXT NOT NULL, n INTEGER NOT NULL,
    of INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (term, path)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes (at INTEGER PRIMARY KEY, files TEXT NOT NULL);
"""
_TABLES = ("seen", "tips", "files", "pairs", "words", "changes")
_ADD_FILE = "INSERT INTO files VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET n = n + excluded.n"
_ADD_PAIR = "INSERT INTO pairs VALUES (?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET n = n + excluded.n"
_ADD_WORD = (
    "INSERT INTO words (term, path, n) VALUES (?, ?, ?)"
    " ON CONFLICT (term, path) DO UPDATE SET n = n + excluded.n"
)

CountsOf = tuple[dict[str, int], dict[tuple[str, str], int]]
# a file past words rank: (path, score, the most commits one query word shares with it)
Ranked = tuple[str, float, int]


def db_path(state_dir: Path, catalog: str) -> Path:
    return state_dir / "history" / f"{catalog}.sqlite"


def summary(state_dir: Path, catalog: str) -> tuple[int, int] | None:
    """(commits counted, bytes on disk) of the catalog's counts, None when there are none."""
    db = db_path(state_dir, catalog)
    if not db.exists():
        return None
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            if _schema(con) != SCHEMA:
                return None  # counted before the words: the runner queues a refresh to recount
            (n,) = con.execute("SELECT COUNT(*) FROM seen").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return None
    return int(n), db.stat().st_size


def _schema(con: sqlite3.Connection) -> str | None:
    row = con.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
    return None if row is None else str(row[0])


def forget(state_dir: Path, catalog: str) -> None:
    """The catalog's counts deleted (`catalog rm --purge`)."""
    db = db_path(state_dir, catalog)
    for f in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        f.unlink(missing_ok=True)


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass
class Counts:
    """Counts in memory: what one walk adds to the table, and, for measuring ranking on a
    history cut at a date, the whole table (bench/rank_eval.py: a query sees commits before it)."""

    single: Counter[str] = field(default_factory=Counter)
    pair: Counter[tuple[str, str]] = field(default_factory=Counter)
    words: dict[int, Counter[str]] = field(default_factory=dict)  # term -> file -> commits
    # the files of the newest WINDOW changes added, oldest first (evaluate/past.py adds them)
    changes: deque[tuple[str, ...]] = field(default_factory=lambda: deque(maxlen=WINDOW))

    def add(self, files: Sequence[str], terms: Iterable[int] = ()) -> None:
        """One commit's files, sorted, and its subject's distinct terms (lexical.query_indices)."""
        self.single.update(files)
        for i, a in enumerate(files):
            for b in files[i + 1 :]:
                self.pair[(a, b)] += 1
        for t in terms:
            self.words.setdefault(t, Counter()).update(files)

    def frequencies(self, terms: Sequence[int]) -> dict[int, int]:
        """For each term, how many files commits with it in their subject touched."""
        return {t: len(self.words[t]) for t in terms if t in self.words}

    def latest_changes(self) -> list[tuple[str, ...]]:
        return list(self.changes)

    def totals(self) -> tuple[int, int]:
        """(files counted, commits over all files): BM25's document count and mean length."""
        return len(self.single), sum(self.single.values())

    def best(self, weights: dict[int, float], lean: float, slope: float, limit: int) -> list[Ranked]:
        """The `limit` files scoring best by sum over the terms of weight x n / (n + lean + slope
        x the file's commits), n the term's commits that touched it (History.best, in SQL)."""
        score: dict[str, float] = {}
        most: dict[str, int] = {}
        for t, w in weights.items():
            for f, n in self.words.get(t, {}).items():
                score[f] = score.get(f, 0.0) + w * n / (n + lean + slope * self.single[f])
                most[f] = max(most.get(f, 0), n)
        top = heapq.nsmallest(limit, score, key=lambda f: (-score[f], f))
        return [(f, score[f], most[f]) for f in top]

    def counts(self, files: Sequence[str], anchors: Sequence[str]) -> CountsOf:
        single = {g: self.single[g] for g in anchors if self.single[g]}
        pair = {}
        for f in files:
            for g in anchors:
                if f != g and self.pair[_key(f, g)]:
                    pair[_key(f, g)] = self.pair[_key(f, g)]
        return single, pair


class CountTable:
    """The catalog's counts open for one walk (history/catchup.py)."""

    def __init__(self, db: Path, policy: str) -> None:
        """`policy`: the crawl policy's fingerprint; another policy counts other files, so the
        table starts over."""
        db.parent.mkdir(parents=True, exist_ok=True)
        self.con = sqlite3.connect(db, timeout=30)
        self.con.execute("PRAGMA journal_mode=WAL")  # searches read while a refresh writes
        self.con.executescript(_SCHEMA.split(";", 1)[0])  # meta alone: which schema the rest has
        if _schema(self.con) != SCHEMA:  # tables of another shape: made again, empty
            with self.con:
                for table in _TABLES:
                    self.con.execute(f"DROP TABLE IF EXISTS {table}")  # noqa: S608 - fixed table names
        self.con.executescript(_SCHEMA)
        row = self.con.execute("SELECT value FROM meta WHERE key = 'policy'").fetchone()
        with self.con:
            if row is not None and row[0] != policy:
                for table in _TABLES:
                    self.con.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            self.con.execute("INSERT OR REPLACE INTO meta VALUES ('policy', ?)", (policy,))
            self.con.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA,))

    def meta(self, key: str) -> str:
        """A value the walks keep ("" when none was kept)."""
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row is not None else ""

    def set_meta(self, key: str, value: str) -> None:
        with self.con:
            self.con.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def tips(self) -> list[str]:
        return [r[0] for r in self.con.execute("SELECT oid FROM tips ORDER BY at DESC")]

    def seen(self) -> set[str]:
        return {r[0] for r in self.con.execute("SELECT oid FROM seen")}

    def add(
        self,
        oids: Sequence[str],
        counts: Iterable[Counts],
        moved: dict[str, str],
        tip: str,
        latest: Sequence[tuple[str, ...]] = (),
    ) -> None:
        """One walk's commits, their counts and the renames it met, in one transaction (`counts`
        is read first: a walk may fill `oids`, `moved` and `latest`, the files of its newest
        changes, newest first, as it goes). What was counted before
        under a name since renamed is copied to the new name (not moved: a branch without the
        rename still has the old name)."""
        touched: set[str] = set()
        # Only what earlier walks counted is copied: this walk counted each commit under the name
        # its file has today already, and its rows under an old name belong to a file made there
        # since (copied, they were counted twice, once for the wrong file).
        before = self.con.execute("SELECT EXISTS (SELECT 1 FROM seen)").fetchone()[0]
        with self.con:
            for part in counts:
                self.con.executemany(_ADD_FILE, part.single.items())
                self.con.executemany(_ADD_PAIR, ((a, b, n) for (a, b), n in part.pair.items()))
                said = ((t, f, n) for t, files in part.words.items() for f, n in files.items())
                self.con.executemany(_ADD_WORD, said)
                touched.update(part.single)
            if not oids:  # reachable from a tip already: nothing was new
                return
            self.con.executemany("INSERT OR IGNORE INTO seen VALUES (?)", ((o,) for o in oids))
            moved = {old: new for old, new in moved.items() if old != new} if before else {}
            for old, new in moved.items():
                rows = self.con.execute("SELECT n FROM files WHERE path = ?", (old,)).fetchall()
                self.con.executemany(_ADD_FILE, ((new, n) for (n,) in rows))
                pairs = self.con.execute(
                    "SELECT a, b, n FROM pairs WHERE a = ? OR b = ?", (old, old)
                ).fetchall()
                for a, b, n in pairs:
                    other = b if a == old else a
                    if other != new:
                        self.con.execute(_ADD_PAIR, (*_key(new, other), n))
            self._move_words(moved)
            self._set_of(touched | set(moved.values()))
            self._add_changes(latest, moved)
            at = self.con.execute("SELECT COALESCE(MAX(at), 0) FROM tips").fetchone()[0] + 1
            self.con.execute("INSERT OR REPLACE INTO tips VALUES (?, ?)", (tip, at))
            self.con.execute("DELETE FROM tips WHERE at <= ?", (at - TIPS,))

    # The word rows are keyed by term, for searches: what a walk asks by path it asks of all its
    # paths at once, one pass over the table (an index by path too made counting rushstack's
    # history 1.8 s slower, a lookup per rename without one 60 s).

    def _move_words(self, moved: dict[str, str]) -> None:
        if not moved:
            return
        self._paths("moved", moved.items())
        rows = self.con.execute(
            "SELECT words.term, m.b, words.n FROM words JOIN temp.moved m ON m.a = words.path"
        ).fetchall()
        self.con.executemany(_ADD_WORD, rows)

    def _add_changes(self, latest: Sequence[tuple[str, ...]], moved: dict[str, str]) -> None:
        """The walk's newest changes after those kept, under today's names; the oldest beyond
        WINDOW dropped. A walk's commits are newer than those counted before it (a branch
        reaching far back is the exception: its old changes count as new)."""
        if moved:
            rows = self.con.execute("SELECT at, files FROM changes").fetchall()
            for at, files in rows:
                named = "\n".join(moved.get(f, f) for f in files.split("\n"))
                if named != files:
                    self.con.execute("UPDATE changes SET files = ? WHERE at = ?", (named, at))
        newest = latest[:WINDOW]
        if not newest:
            return
        top = self.con.execute("SELECT COALESCE(MAX(at), 0) FROM changes").fetchone()[0]
        self.con.executemany(
            "INSERT INTO changes VALUES (?, ?)",
            ((top + n, "\n".join(files)) for n, files in enumerate(reversed(newest), start=1)),
        )
        self.con.execute("DELETE FROM changes WHERE at <= ?", (top + len(newest) - WINDOW,))

    def _set_of(self, paths: set[str]) -> None:
        self._paths("touched", ((p, p) for p in paths))
        self.con.execute(
            "UPDATE words SET of = (SELECT n FROM files WHERE files.path = words.path) "
            "WHERE path IN (SELECT a FROM temp.touched)"
        )

    def _paths(self, name: str, rows: Iterable[tuple[str, str]]) -> None:
        self.con.execute(f"CREATE TEMP TABLE IF NOT EXISTS {name} (a TEXT PRIMARY KEY, b TEXT) WITHOUT ROWID")
        self.con.execute(f"DELETE FROM temp.{name}")  # noqa: S608 - fixed table names
        self.con.executemany(f"INSERT OR REPLACE INTO temp.{name} VALUES (?, ?)", rows)  # noqa: S608

    def close(self) -> None:
        self.con.close()


class History:
    """Read access for one search: opened and closed per search (a connection belongs to the
    thread that opened it, and the runner answers searches on several)."""

    def __init__(self, db: Path) -> None:
        self.con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)

    @classmethod
    def open(cls, state_dir: Path, catalog: str) -> History | None:
        """The catalog's counts, or None when none were counted yet (or they cannot be read)."""
        db = db_path(state_dir, catalog)
        if not db.exists():
            return None
        try:
            return cls(db)
        except sqlite3.Error:
            return None

    def counts(self, files: Sequence[str], anchors: Sequence[str]) -> CountsOf:
        """({anchor: commits touching it}, {(a, b): commits touching both}) for each file
        against each anchor, a < b. Nothing when the table cannot be read."""
        if not files or not anchors:
            return {}, {}
        fa, aa = ",".join("?" * len(files)), ",".join("?" * len(anchors))
        where = f"(a IN ({aa}) AND b IN ({fa})) OR (b IN ({aa}) AND a IN ({fa}))"
        try:
            single = dict(
                self.con.execute(f"SELECT path, n FROM files WHERE path IN ({aa})", list(anchors)).fetchall()  # noqa: S608
            )
            rows = self.con.execute(
                f"SELECT a, b, n FROM pairs WHERE {where}",  # noqa: S608
                [*anchors, *files, *anchors, *files],
            ).fetchall()
        except sqlite3.Error:
            return {}, {}
        return single, {(a, b): n for a, b, n in rows if a != b}

    def frequencies(self, terms: Sequence[int]) -> dict[int, int]:
        """For each term, how many files commits with it in their subject touched (pastwords.py).
        Nothing when the table cannot be read or predates the words."""
        if not terms:
            return {}
        marks = ",".join("?" * len(terms))
        try:
            rows = self.con.execute(
                f"SELECT term, COUNT(*) FROM words WHERE term IN ({marks}) GROUP BY term",  # noqa: S608
                list(terms),
            ).fetchall()
        except sqlite3.Error:
            return {}
        return {int(t): int(n) for t, n in rows}

    def best(self, weights: dict[int, float], lean: float, slope: float, limit: int) -> list[Ranked]:
        """Counts.best, summed by SQLite: a common word's thousands of rows never reach Python
        (rushstack's pull-request titles: ~2,000 rows a query, 4 ms in Python)."""
        if not weights:
            return []
        terms = ",".join("(?, ?)" for _ in weights)
        try:
            rows = self.con.execute(
                f"WITH q(term, w) AS (VALUES {terms}) "  # noqa: S608 - placeholders only
                "SELECT words.path, SUM(q.w * words.n / (words.n + ? + ? * words.of)) AS s, MAX(words.n) "
                "FROM q JOIN words ON words.term = q.term GROUP BY words.path "
                "ORDER BY s DESC, words.path LIMIT ?",
                [*(v for t, w in weights.items() for v in (t, w)), lean, slope, limit],
            ).fetchall()
        except sqlite3.Error:
            return []
        return [(str(p), float(sc), int(n)) for p, sc, n in rows]

    def latest_changes(self) -> list[tuple[str, ...]]:
        """The files of the newest changes counted (up to WINDOW), oldest first; none when the
        table cannot be read or predates them."""
        try:
            rows = self.con.execute("SELECT files FROM changes ORDER BY at").fetchall()
        except sqlite3.Error:
            return []
        return [tuple(files.split("\n")) for (files,) in rows]

    def totals(self) -> tuple[int, int]:
        try:
            files, commits = self.con.execute("SELECT COUNT(*), COALESCE(SUM(n), 0) FROM files").fetchone()
        except sqlite3.Error:
            return 0, 0
        return int(files), int(commits)

    def close(self) -> None:
        self.con.close()
