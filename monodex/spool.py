"""The spool: a directory queue of label-refresh requests, shared by hooks (writers) and the
runner (reader). Stdlib only: it is on the hook path.

Layout under $XDG_STATE_HOME/monodex/spool:
  new/         one JSON file per request, written to tmp/ then renamed in (atomic)
  claimed/     requests the runner is working on (claimed by rename: only one runner wins)
  quarantine/  malformed entries, each with a .reason file beside it
Requests for the same label coalesce: a claim takes the newest and absorbs the older ones.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from monodex import names
from monodex.errors import UsageError

SCHEMA = 1
MAX_BACKOFF_SECONDS = 3600.0


@dataclass(frozen=True)
class Request:
    catalog: str
    label: str
    repo: str
    ref: str  # refs/heads/main
    commit: str
    hook: str  # post-commit | post-checkout | post-merge | post-rewrite | cli
    created_at: float
    attempts: int = 0
    not_before: float = 0.0
    last_error: str = ""
    schema: int = SCHEMA
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return names.label_id(self.catalog, self.label)


class Malformed(ValueError):
    pass


@dataclass(frozen=True)
class Quarantined:
    name: str
    reason: str


_STRINGS = ("catalog", "label", "repo", "ref", "commit", "hook", "last_error")
_NUMBERS = ("created_at", "not_before")


def parse(raw: bytes) -> Request:
    """A spool entry as a Request, checked field by field: a wrong-typed entry must be set aside
    at claim time, not break sorting or a refresh later (issue 12)."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise Malformed(f"not JSON: {exc}") from exc
    schema = data.get("schema") if isinstance(data, dict) else data
    if not isinstance(data, dict) or type(schema) is not int or schema != SCHEMA:
        raise Malformed(f"unsupported schema {schema!r} (this monodex writes schema {SCHEMA})")
    fields = {"catalog", "label", "repo", "ref", "commit", "hook", "created_at"}
    missing = fields - data.keys()
    if missing:
        raise Malformed(f"missing fields: {', '.join(sorted(missing))}")
    known = {k: v for k, v in data.items() if k in Request.__dataclass_fields__}
    problem = _type_problem(known)
    if problem:
        raise Malformed(problem)
    try:
        names.validate_catalog(known["catalog"])
        names.validate_label(known["label"])
    except UsageError as exc:
        raise Malformed(exc.problem) from exc
    return Request(**known)


def _type_problem(data: dict[str, Any]) -> str:
    for key in _STRINGS:
        if key in data and not isinstance(data[key], str):
            return f"{key}: expected a string, got {data[key]!r}"
    for key in _NUMBERS:  # bool is an int subclass, and never a time
        if key in data and (type(data[key]) not in (int, float) or data[key] != data[key]):
            return f"{key}: expected a number, got {data[key]!r}"
    attempts = data.get("attempts", 0)
    if type(attempts) is not int:
        return f"attempts: expected a whole number, got {attempts!r}"
    if attempts < 0:
        return f"attempts: must not be negative, got {attempts}"
    if not isinstance(data.get("extra", {}), dict):
        return f"extra: expected an object, got {data['extra']!r}"
    return ""


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

    def _dirs(self) -> None:
        for d in (self.new, self.claimed, self.quarantine, self.tmp):
            d.mkdir(parents=True, exist_ok=True)

    def enqueue(self, req: Request) -> Path:
        self._dirs()
        name = f"{req.created_at:020.6f}-{os.getpid()}-{uuid.uuid4().hex[:8]}.json"
        tmp = self.tmp / name
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(asdict(req), fh)
            fh.flush()
            os.fsync(fh.fileno())
        target = self.new / name
        os.replace(tmp, target)
        return target

    def pending(self) -> list[Path]:
        return sorted(self.new.glob("*.json")) if self.new.is_dir() else []

    def due(self, now: float) -> bool:
        """Whether a drain would find work now (a failed request backing off is not due)."""
        for p in self.pending():
            try:
                if parse(p.read_bytes()).not_before <= now:
                    return True
            except (OSError, Malformed):
                return True  # the drain quarantines it
        return False

    def failed(self) -> list[Request]:
        out = []
        for p in self.pending():
            try:
                req = parse(p.read_bytes())
            except (OSError, Malformed):
                continue
            if req.attempts:
                out.append(req)
        return out

    def quarantined(self) -> list[Quarantined]:
        """Entries set aside as malformed, each with the reason from its .reason file."""
        if not self.quarantine.is_dir():
            return []
        out = []
        for p in sorted(self.quarantine.iterdir()):
            if p.name.endswith(".reason") or p.name.startswith("."):
                continue
            try:
                reason = (self.quarantine / (p.name + ".reason")).read_text().strip()
            except OSError:
                reason = "(no reason recorded)"
            out.append(Quarantined(p.name, reason))
        return out

    def requests_for(self, key: str) -> list[Request]:
        """Requests for one label still queued or being worked on (claimed)."""
        out = []
        for d in (self.new, self.claimed):
            for p in sorted(d.glob("*.json")) if d.is_dir() else ():
                try:
                    req = parse(p.read_bytes())
                except (OSError, Malformed):
                    continue
                if req.key == key:
                    out.append(req)
        return out

    def recover(self) -> int:
        """Entries a crashed runner left claimed go back to new/ (at start-up, before claiming)."""
        self._dirs()
        moved = 0
        for p in self.claimed.glob("*.json"):
            os.replace(p, self.new / p.name)
            moved += 1
        return moved

    def _quarantine(self, path: Path, reason: str) -> None:
        try:
            os.replace(path, self.quarantine / path.name)
            (self.quarantine / (path.name + ".reason")).write_text(reason + "\n")
        except FileNotFoundError:
            pass

    def claim(self, now: float) -> tuple[Request, list[Path]] | None:
        """Claim the oldest due label: its newest request, plus the older ones it absorbs."""
        self._dirs()
        by_label: dict[str, list[tuple[Path, Request]]] = {}
        for p in self.pending():
            try:
                req = parse(p.read_bytes())
            except FileNotFoundError:
                continue  # another runner took it
            except (OSError, Malformed) as exc:
                self._quarantine(p, str(exc))
                continue
            by_label.setdefault(req.key, []).append((p, req))
        due = [
            (entries[0][1].created_at, key)
            for key, entries in by_label.items()
            if max(r.not_before for _, r in entries) <= now
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
                newest = max((r for _, r in entries), key=lambda r: r.created_at)
                attempts = max(r.attempts for _, r in entries)
                return Request(**{**asdict(newest), "attempts": attempts}), claimed
        return None

    def ack(self, claimed: list[Path]) -> None:
        for p in claimed:
            try:
                p.unlink()
            except FileNotFoundError:
                pass

    def fail(self, req: Request, claimed: list[Path], *, error: str, now: float) -> Request:
        """Return a failed request to the queue with one more attempt and a backoff."""
        attempts = req.attempts + 1
        again = Request(
            **{
                **asdict(req),
                "attempts": attempts,
                "not_before": now + backoff(attempts),
                "last_error": error[:2000],
            }
        )
        self.enqueue(again)
        self.ack(claimed)
        return again


def default(state_dir: Path) -> Spool:
    return Spool(state_dir / "spool")


def now() -> float:
    return time.time()
