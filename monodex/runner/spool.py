"""The spool: a directory queue of label-refresh requests, shared by hooks (writers) and the
runner (reader). Stdlib only: it is on the hook path.

Layout under $XDG_STATE_HOME/monodex/spool:
  new/         one JSON file per request, written to tmp/ then renamed in (atomic)
  claimed/     requests the runner is working on (claimed by rename: only one runner wins)
  quarantine/  malformed entries, each with a .reason file beside it; the runner prunes it
               (at start and with the nightly gc: `prune`), keeping the newest for diagnosis
Requests for the same label coalesce: a claim takes the newest and absorbs the older ones.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from monodex.errors import UsageError
from monodex.requests import SPOOL_SCHEMA as SCHEMA
from monodex.requests import RefreshRequest as Request
from monodex.requests import build

__all__ = ["SCHEMA", "Malformed", "Quarantined", "Request", "Spool", "backoff", "parse", "refresh_request"]

MAX_BACKOFF_SECONDS = 3600.0
# A request failing for a reason retrying cannot fix (its catalog unknown, its commit never
# resolving) is set aside after this many attempts, ~21 minutes of backoff; other failures (a
# full disk, a server down) retry until they pass.
MAX_ATTEMPTS = 8
MAX_ENTRY_BYTES = 1024 * 1024  # an entry is a few hundred bytes
# Reading an entry fails like this only if it can never be read: set it aside. Other errors
# (out of descriptors, EIO) may pass, so the entry stays queued and the drain reports them.
_NEVER_READABLE = {errno.ELOOP, errno.EACCES, errno.EPERM, errno.EISDIR, errno.ENXIO, errno.ENOTDIR}
# quarantine/ is bounded: entries older than a month go, and past the newest 200 any go; the
# newest 20 stay whatever their age (the last bad requests are what a diagnosis needs).
QUARANTINE_MAX_AGE_SECONDS = 30 * 86400.0
QUARANTINE_MAX = 200
QUARANTINE_KEEP = 20


class Malformed(ValueError):
    pass


@dataclass(frozen=True)
class Quarantined:
    name: str
    reason: str


def parse(raw: bytes) -> Request:
    """A spool entry as a Request: the schema first (the envelope), then every field through
    the same request type and checks as a socket call (monodex/requests/)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed(f"not JSON: {exc}") from exc
    schema = data.get("schema") if isinstance(data, dict) else data
    if not isinstance(data, dict) or type(schema) is not int or schema != SCHEMA:
        raise Malformed(f"unsupported schema {schema!r} (this monodex writes schema {SCHEMA})")
    try:
        return build(Request, data, ignore_unknown=True)
    except UsageError as exc:
        missing = getattr(exc, "facts", {}).get("missing")
        raise Malformed(f"missing fields: {', '.join(missing)}" if missing else exc.problem) from exc


def _read(path: Path) -> bytes | None:
    """The entry's bytes, or None when it is gone (another runner claimed it). Raises Malformed
    when it can never be read: a symbolic link (dangling, a loop or not: hooks write plain files
    and links are never followed), a folder, a FIFO, a file of the wrong owner's mode."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Malformed("a symbolic link, not a spool entry (monodex never follows links here)") from exc
        if exc.errno in _NEVER_READABLE:
            raise Malformed(f"unreadable: {exc.strerror}") from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Malformed("not a regular file (monodex writes plain files)")
        if st.st_size > MAX_ENTRY_BYTES:
            raise Malformed(f"{st.st_size:,} bytes: an entry is a few hundred")
        with os.fdopen(os.dup(fd), "rb") as fh:
            return fh.read(MAX_ENTRY_BYTES + 1)
    finally:
        os.close(fd)


def to_prune(
    set_aside: dict[str, float],
    now: float,
    *,
    max_age: float = QUARANTINE_MAX_AGE_SECONDS,
    max_kept: int = QUARANTINE_MAX,
    keep: int = QUARANTINE_KEEP,
) -> list[str]:
    """The quarantined names to delete, given when each was set aside: past the newest
    `max_kept`, or older than `max_age` unless among the newest `keep`."""
    newest_first = sorted(set_aside, key=lambda n: (set_aside[n], n), reverse=True)
    return [
        n for i, n in enumerate(newest_first) if i >= max_kept or (i >= keep and now - set_aside[n] > max_age)
    ]


def backoff(attempts: int) -> float:
    """Seconds to wait after the Nth failure: 10 s doubling, capped at an hour."""
    return float(min(MAX_BACKOFF_SECONDS, 10.0 * 2 ** max(0, attempts - 1)))


class Spool:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.new = root / "new"
        self.claimed = root / "claimed"
        self.quarantine = root / "quarantine"
        self.tmp = root / "tmp"
        self._stuck: set[str] = set()  # bad entries that could not be moved aside (not due)

    def _dirs(self) -> None:
        for d in (self.new, self.claimed, self.quarantine, self.tmp):
            d.mkdir(parents=True, exist_ok=True)

    def enqueue(self, req: Request) -> Path:
        return self._write(req, self.new)

    def _write(self, req: Request, folder: Path) -> Path:
        self._dirs()
        name = f"{req.created_at:020.6f}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        tmp = self.tmp / name
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(asdict(req), fh)
            fh.flush()
            os.fsync(fh.fileno())
        target = folder / name
        os.replace(tmp, target)
        return target

    def pending(self) -> list[Path]:
        """Everything queued in new/, entries or not (a stranger is set aside at the next claim)."""
        return _listing(self.new)

    def entry(self, path: Path) -> Request | None:
        """The request in one queued file; None when it is gone. Raises Malformed when it is no
        entry (misnamed, unreadable, bad JSON or fields) and OSError when reading it may pass."""
        if not path.name.endswith(".json"):
            raise Malformed("not a spool entry: its name does not end in .json (hooks write NAME.json)")
        raw = _read(path)
        return None if raw is None else parse(raw)

    def _requests(self, folder: Path) -> list[Request]:
        """The readable requests in a folder; anything else is skipped (the drain sets it aside)."""
        out = []
        for p in _listing(folder):
            try:
                req = self.entry(p)
            except (OSError, Malformed):
                continue
            if req is not None:
                out.append(req)
        return out

    def due(self, now: float) -> bool:
        """Whether a drain would find work now (a failed request backing off is not due)."""
        for p in self.pending():
            if p.name in self._stuck:
                continue
            try:
                req = self.entry(p)
            except (OSError, Malformed):
                return True  # the drain sets it aside (or reports why it cannot)
            if req is not None and req.not_before <= now:
                return True
        return False

    def failed(self) -> list[Request]:
        return [r for r in self._requests(self.new) if r.attempts]

    def unreadable(self) -> list[Quarantined]:
        """Queued files that are no entry, with the reason: the next drain sets them aside."""
        out = []
        for p in self.pending():
            try:
                self.entry(p)
            except (OSError, Malformed) as exc:
                out.append(Quarantined(p.name, str(exc)))
        return out

    def oldest_mtime(self) -> float | None:
        """When the oldest queued or claimed file arrived (a draining runner may move any)."""
        times = []
        for p in self.pending() + _listing(self.claimed):
            try:
                times.append(p.lstat().st_mtime)
            except OSError:
                continue
        return min(times, default=None)

    def quarantined(self) -> list[Quarantined]:
        """Entries set aside as malformed, each with the reason from its .reason file."""
        out = []
        for p in _listing(self.quarantine):
            if p.name.endswith(".reason"):
                continue
            try:
                reason = _read(self.quarantine / (p.name + ".reason"))
            except (OSError, Malformed):
                reason = None
            text = reason.decode("utf-8", "replace").strip() if reason else "(no reason recorded)"
            out.append(Quarantined(p.name, text))
        return out

    def prune(self, now: float) -> int:
        """Delete the quarantined entries `to_prune` names (each with its .reason); how many."""
        set_aside: dict[str, float] = {}
        for p in _listing(self.quarantine):
            try:  # the .reason file is written when the entry is set aside: the later mtime
                when = p.lstat().st_mtime
            except OSError:
                continue
            name = p.name.removesuffix(".reason")
            set_aside[name] = max(when, set_aside.get(name, 0.0))
        doomed = to_prune(set_aside, now)
        for name in doomed:
            for path in (self.quarantine / name, self.quarantine / (name + ".reason")):
                _remove(path)
        return len(doomed)

    def requests_for(self, key: str) -> list[Request]:
        """Requests for one label still queued or being worked on (claimed)."""
        return [r for d in (self.new, self.claimed) for r in self._requests(d) if r.key == key]

    def keys(self) -> set[str]:
        """The labels with a request queued or being worked on: one read for many labels."""
        return {r.key for d in (self.new, self.claimed) for r in self._requests(d)}

    def recover(self) -> int:
        """Entries a crashed runner left claimed go back to new/ (at start-up, before claiming)."""
        self._dirs()
        moved = 0
        for p in _listing(self.claimed):
            try:
                os.replace(p, self.new / p.name)
            except FileNotFoundError:
                continue
            moved += 1
        return moved

    def _quarantine(self, path: Path, reason: str) -> None:
        try:
            os.replace(path, self.quarantine / path.name)
        except FileNotFoundError:
            return
        except OSError:
            self._stuck.add(path.name)  # status lists it as unreadable; due() no longer waits on it
            return
        try:
            (self.quarantine / (path.name + ".reason")).write_text(reason + "\n")
        except OSError:
            pass  # listed with "(no reason recorded)"

    def claim(self, now: float) -> tuple[Request, list[Path]] | None:
        """Claim the oldest due label: its newest request, plus the older ones it absorbs.

        A label is due when any of its requests is: a new commit (or `--fresh`) is tried at once
        even while an older request for the label backs off, and carries its own attempts."""
        self._dirs()
        by_label: dict[str, list[tuple[Path, Request]]] = {}
        for p in self.pending():
            if p.name in self._stuck:
                continue
            try:
                req = self.entry(p)
            except Malformed as exc:
                self._quarantine(p, str(exc))
                continue
            if req is None:
                continue  # another runner took it
            by_label.setdefault(req.key, []).append((p, req))
        due = [
            (entries[0][1].created_at, key)
            for key, entries in by_label.items()
            if any(r.not_before <= now for _, r in entries)
        ]
        for _, key in sorted(due):
            entries = by_label[key]
            claimed = []
            for p, _ in entries:
                try:
                    os.replace(p, self.claimed / p.name)
                    claimed.append(self.claimed / p.name)
                except FileNotFoundError:
                    continue
            if claimed:
                return max((r for _, r in entries), key=lambda r: r.created_at), claimed
        return None

    def ack(self, claimed: list[Path]) -> None:
        for p in claimed:
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def fail(
        self, req: Request, claimed: list[Path], *, error: str, now: float, permanent: bool = False
    ) -> Request | None:
        """Return a failed request to the queue with one more attempt and a backoff; a permanent
        failure's MAX_ATTEMPTS-th is set aside in quarantine with its reason instead (None)."""
        attempts = req.attempts + 1
        again = Request(
            **{
                **asdict(req),
                "attempts": attempts,
                "not_before": now + backoff(attempts),
                "last_error": error[:2000],
            }
        )
        if permanent and attempts >= MAX_ATTEMPTS:
            kept = self._write(again, self.quarantine)
            (self.quarantine / (kept.name + ".reason")).write_text(
                f"gave up after {attempts} attempts: {error[:2000]}\n"
            )
            self.ack(claimed)
            return None
        self.enqueue(again)
        self.ack(claimed)
        return again


def _listing(folder: Path) -> list[Path]:
    """A folder's files by name, hidden ones aside; none when it cannot be listed."""
    try:
        return sorted(folder / n for n in os.listdir(folder) if not n.startswith("."))
    except OSError:
        return []


def _remove(path: Path) -> None:
    """A file, a link (never what it points to) or a folder set aside; gone already is fine."""
    try:
        if stat.S_ISDIR(path.lstat().st_mode):
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink()
    except OSError:
        pass


def refresh_request(
    catalog: str, label: str, *, repo: Path | str, ref: str, commit: str, hook: str, at: float
) -> Request:
    """The one spool entry there is: bring `label` of `catalog` to `commit`, which `ref` pointed at
    in the checkout at `repo` (refs/heads/<branch>; "HEAD" for a detached commit, "" for none).
    `hook` says who asked: a git hook's name, "ref-poll" (the runner saw the branch move) or
    "cli" (a command or the runner itself: a label removed by hand is refreshed anyway)."""
    return Request(
        catalog=catalog, label=label, repo=str(repo), ref=ref, commit=commit, hook=hook, created_at=at
    )


def default(state_dir: Path) -> Spool:
    return Spool(state_dir / "spool")


def now() -> float:
    return time.time()
