"""config.json: validated once at the edge into frozen dataclasses; defaults live here."""

from __future__ import annotations

import os
import urllib.parse
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from monodex import names
from monodex.disk import jsonfile
from monodex.disk.paths import Paths
from monodex.errors import UsageError
from monodex.requests.fields import MAX_WEIGHT
from monodex.settings.validate import Where, boolean, integer, obj, string, string_list

DEFAULT_COLLECTION = "monodex"
DEFAULT_API_KEY_ENV = "QDRANT_API_KEY"


@dataclass(frozen=True)
class QdrantConfig:
    path: Path | None = None  # embedded Qdrant Edge shard directory (default under XDG_DATA_HOME)
    url: str | None = None  # a Qdrant server; wins over path when set
    api_key_env: str = DEFAULT_API_KEY_ENV
    collection: str = DEFAULT_COLLECTION

    @property
    def api_key(self) -> str | None:
        return os.environ.get(self.api_key_env) or None

    @property
    def shown_url(self) -> str | None:
        """The URL as every message, log and answer may show it: its password and secret query
        parameters as ***."""
        return redacted_url(self.url) if self.url else None


# A query parameter whose name holds one of these (`api_key`, `apiKey`, `access_token`, `key`,
# `sig`, ...) carries a secret: its value is never shown.
_SECRET_PARAMS = ("key", "token", "secret", "pass", "pwd", "auth", "sig", "cred")


def redacted_url(url: str) -> str:
    """`http://user:PASSWORD@host:6333/?api_key=KEY` as `http://user:***@host:6333/?api_key=***`:
    the one place a `qdrant.url` is made fit to show (its secrets live in config.json only)."""
    return _split_secrets(url)[0]


def redact(text: str, url: str | None) -> str:
    """`text` with `url`'s secrets replaced wherever they appear (an error quoting the URL)."""
    if not url:
        return text
    shown, secrets = _split_secrets(url)
    text = text.replace(url, shown)
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***").replace(urllib.parse.quote(secret, safe=""), "***")
    return text


def _split_secrets(url: str) -> tuple[str, list[str]]:
    """The URL with its password and secret query values as `***`, and those secrets."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url, []
    cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    secrets: list[str] = []
    userinfo, at, host = netloc.rpartition("@")
    if at and ":" in userinfo:
        user, password = userinfo.split(":", 1)
        secrets.append(password)
        netloc = f"{user}:***@{host}"
    path, qmark, query = tail.partition("?")
    query, hash_, fragment = query.partition("#")
    params = []
    for param in query.split("&") if qmark else []:
        name, eq, value = param.partition("=")
        plain = name.lower().replace("_", "").replace("-", "")
        if eq and value and any(word in plain for word in _SECRET_PARAMS):
            secrets.append(value)
            value = "***"
        params.append(f"{name}{eq}{value}")
    shown = f"{scheme}://{netloc}{path}{qmark}{'&'.join(params)}{hash_}{fragment}"
    return shown, [s for s in secrets if s and s != "***"]


# Each onnxruntime session holds ~130-180 MB with the shipped model (measured; sharing its
# initializers or turning prepacking and the arena off did not lower it): past 4 the default gives
# each session more threads instead (16 cores: 4 sessions of 4 threads).
DEFAULT_SESSIONS = 4


@dataclass(frozen=True)
class EmbedderConfig:
    model: str = "default"  # "default" (packaged MiniLM) or a folder holding model.onnx + tokenizer.json
    # The cores the model may use; None: the usable cores.
    threads: int | None = None
    # Sessions sharing them, each embedding other texts at once (embed/workers.py); None: one per
    # thread, up to DEFAULT_SESSIONS. 1: one session whose intra-op threads are all of them (the
    # arrangement before issue 36).
    workers: int | None = None
    batch_size: int = 1  # batching was slower than one text at a time on 2 cores (measured)
    # A refresh makes the label searchable before the model runs (new chunks by their words until
    # their vectors are added behind); False: it embeds first, and the label lags by the model time.
    two_phase: bool = True

    @property
    def cores(self) -> int:
        return self.threads if self.threads is not None else usable_cores()

    @property
    def sessions(self) -> int:
        wanted = self.workers if self.workers is not None else min(self.cores, DEFAULT_SESSIONS)
        return max(1, min(wanted, self.cores))

    @property
    def session_threads(self) -> int:
        """Each session's intra-op threads: the cores shared among the sessions."""
        return max(1, self.cores // self.sessions)


def usable_cores() -> int:
    """The cores this process may run on (its affinity, e.g. a container's cpuset)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


@dataclass(frozen=True)
class CrawlConfig:
    """How a crawl uses the machine (issue 36); read per crawl, the runner need not restart."""

    # Worker processes that chunk files for a large crawl while its own process stores them; None:
    # one fewer than the usable cores, at most 2 (the crawl's own writes are the limit past that).
    workers: int | None = None
    # The crawl's resident memory (its process and its workers), in MB: past it, the index's
    # in-memory part is written out (store/edge.py roll) and batches stay small.
    max_memory_mb: int = 700

    @property
    def worker_count(self) -> int:
        return self.workers if self.workers is not None else max(0, min(2, usable_cores() - 1))


@dataclass(frozen=True)
class SearchTuning:
    """How a catalog's searches weigh their evidence, for a user to tune with `monodex eval
    --against` (the defaults are what bench/answers.py measured best across repositories)."""

    lexical_weight: float = 1.0  # the lexical list's weight in the fusion, the dense list's being 1
    history_weight: float = 1.0  # x the history's signals: files changed together, past commits' words


@dataclass(frozen=True)
class Catalog:
    name: str
    path: Path
    type: str = "monorepo"
    track: tuple[str, ...] = ()  # branch globs refreshed by hooks, beyond the default branch
    prune_labels: bool = False  # nightly: drop commit labels whose branch no longer exists
    # A label whose branch was deleted is removed this long after the runner saw it gone.
    deleted_grace_days: float = 3.0
    search: SearchTuning = field(default_factory=SearchTuning)


@dataclass(frozen=True)
class Schedules:
    """When the runner works: the spool drain interval, two nightly cron jobs, and how often it
    compares every catalog's branches with their labels (moves no hook sees)."""

    drain_seconds: float = 2.0
    gc: str = "0 3 * * *"
    verify: str = "30 3 * * *"
    refs_seconds: float = 60.0


@dataclass(frozen=True)
class Config:
    qdrant: QdrantConfig = field(default_factory=QdrantConfig)
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    crawl: CrawlConfig = field(default_factory=CrawlConfig)
    schedules: Schedules = field(default_factory=Schedules)
    catalogs: dict[str, Catalog] = field(default_factory=dict)
    source: Path | None = None

    def catalog(self, name: str) -> Catalog:
        names.validate_catalog(name)
        try:
            return self.catalogs[name]
        except KeyError:
            known = ", ".join(sorted(self.catalogs)) or "none yet"
            raise UsageError(
                f"unknown catalog {name!r} (registered: {known})",
                f"register it with 'monodex catalog add {name} /path/to/repo'",
            ) from None


def _qdrant(raw: Any, where: Where) -> QdrantConfig:
    d = obj(raw, where, allowed=("path", "url", "api_key_env", "collection"))
    path = string(d["path"], where / "path") if "path" in d else None
    if path is not None and not os.path.isabs(os.path.expanduser(path)):
        raise (where / "path").fail("must be an absolute path", "write the full path of the shard folder")
    url = string(d["url"], where / "url") if "url" in d else None
    if url is not None and not url.startswith(("http://", "https://")):
        raise (where / "url").fail("must start with http:// or https://")
    collection = string(d.get("collection", DEFAULT_COLLECTION), where / "collection")
    return QdrantConfig(
        path=Path(os.path.expanduser(path)) if path else None,
        url=url,
        api_key_env=string(d.get("api_key_env", DEFAULT_API_KEY_ENV), where / "api_key_env"),
        collection=collection,
    )


def _embedder(raw: Any, where: Where) -> EmbedderConfig:
    d = obj(raw, where, allowed=("model", "threads", "workers", "batch_size", "two_phase"))
    return EmbedderConfig(
        model=string(d.get("model", "default"), where / "model"),
        threads=integer(d["threads"], where / "threads", minimum=1) if "threads" in d else None,
        workers=integer(d["workers"], where / "workers", minimum=1) if "workers" in d else None,
        batch_size=integer(d.get("batch_size", 1), where / "batch_size", minimum=1),
        two_phase=boolean(d.get("two_phase", True), where / "two_phase"),
    )


# Below this a crawl's process cannot hold its libraries and a batch (about 150 MB measured).
MIN_MEMORY_MB = 256


def _crawl(raw: Any, where: Where) -> CrawlConfig:
    d = obj(raw, where, allowed=("workers", "max_memory_mb"))
    workers = integer(d["workers"], where / "workers", minimum=0) if "workers" in d else None
    memory = integer(
        d.get("max_memory_mb", CrawlConfig.max_memory_mb), where / "max_memory_mb", minimum=MIN_MEMORY_MB
    )
    return CrawlConfig(workers=workers, max_memory_mb=memory)


def _cron(raw: Any, where: Where) -> str:
    expr = string(raw, where)
    if len(expr.split()) != 5:  # the runner parses the fields themselves with APScheduler
        raise where.fail(f"{expr!r} is not a cron expression", 'use five fields, e.g. "0 3 * * *"')
    return expr


def _number(raw: Any, where: Where, low: float, high: float, example: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not low <= raw <= high:
        raise where.fail(f"{raw!r} is not a number from {low:g} to {high:g}", f"use e.g. {example}")
    return float(raw)


def _schedules(raw: Any, where: Where) -> Schedules:
    d = obj(raw, where, allowed=("drain_seconds", "gc", "verify", "refs_seconds"))
    return Schedules(
        drain_seconds=_number(d.get("drain_seconds", 2.0), where / "drain_seconds", 0.1, 3600, "2"),
        gc=_cron(d.get("gc", Schedules.gc), where / "gc"),
        verify=_cron(d.get("verify", Schedules.verify), where / "verify"),
        refs_seconds=_number(d.get("refs_seconds", 60.0), where / "refs_seconds", 1, 86400, "60"),
    )


def _catalog(name: str, raw: Any, where: Where) -> Catalog:
    try:
        names.validate_catalog(name)
    except UsageError as exc:
        raise where.fail(exc.problem, exc.hint) from None
    d = obj(
        raw,
        where,
        required=("type", "path"),
        allowed=("track", "prune_labels", "deleted_grace_days", "search"),
    )
    kind = string(d["type"], where / "type")
    if kind != "monorepo":
        raise (where / "type").fail(f"unsupported type {kind!r}", 'use "monorepo"')
    path = string(d["path"], where / "path")
    track = tuple(string_list(d.get("track", []), where / "track"))
    prune = d.get("prune_labels", False)
    if not isinstance(prune, bool):
        raise (where / "prune_labels").fail(f"{prune!r} is not true or false", "write true or false")
    grace = _number(d.get("deleted_grace_days", 3.0), where / "deleted_grace_days", 0, 3650, "3")
    return Catalog(
        name=name,
        path=Path(os.path.expanduser(path)),
        type=kind,
        track=track,
        prune_labels=prune,
        deleted_grace_days=grace,
        search=_search(d.get("search", {}), where / "search"),
    )


def _search(raw: Any, where: Where) -> SearchTuning:
    d = obj(raw, where, allowed=("lexical_weight", "history_weight"))
    lexical = _number(d.get("lexical_weight", 1.0), where / "lexical_weight", 0, MAX_WEIGHT, "1.5")
    history = _number(d.get("history_weight", 1.0), where / "history_weight", 0, MAX_WEIGHT, "0.5")
    return SearchTuning(lexical_weight=lexical, history_weight=history)


def parse(raw: Any, source: str) -> Config:
    top = Where(source)
    d = obj(raw, top, allowed=("qdrant", "embedder", "crawl", "schedules", "catalogs"))
    catalogs_raw = obj(d.get("catalogs", {}), top / "catalogs", allowed=d.get("catalogs", {}) or ())
    return Config(
        qdrant=_qdrant(d.get("qdrant", {}), top / "qdrant"),
        embedder=_embedder(d.get("embedder", {}), top / "embedder"),
        crawl=_crawl(d.get("crawl", {}), top / "crawl"),
        schedules=_schedules(d.get("schedules", {}), top / "schedules"),
        catalogs={n: _catalog(n, v, top / "catalogs" / n) for n, v in catalogs_raw.items()},
    )


def load(paths: Paths) -> Config:
    file = paths.config_file
    if not file.exists():
        return Config(source=file)
    return replace(parse(jsonfile.read(file), str(file)), source=file)


def dump(config: Config) -> dict[str, Any]:
    q = config.qdrant
    qd: dict[str, Any] = {"collection": q.collection}
    if q.path:
        qd["path"] = str(q.path)
    if q.url:
        qd["url"] = q.url
    if q.api_key_env != DEFAULT_API_KEY_ENV:
        qd["api_key_env"] = q.api_key_env
    e = config.embedder
    return {
        "qdrant": qd,
        "embedder": {
            "model": e.model,
            **({"threads": e.threads} if e.threads is not None else {}),
            **({"workers": e.workers} if e.workers is not None else {}),
            "batch_size": e.batch_size,
            **({} if e.two_phase else {"two_phase": False}),
        },
        **({"crawl": _crawl_dump(config.crawl)} if config.crawl != CrawlConfig() else {}),
        **({"schedules": asdict(config.schedules)} if config.schedules != Schedules() else {}),
        "catalogs": {
            c.name: {
                "type": c.type,
                "path": str(c.path),
                **({"track": list(c.track)} if c.track else {}),
                **({"prune_labels": True} if c.prune_labels else {}),
                **({"deleted_grace_days": c.deleted_grace_days} if c.deleted_grace_days != 3.0 else {}),
                **({"search": asdict(c.search)} if c.search != SearchTuning() else {}),
            }
            for c in sorted(config.catalogs.values(), key=lambda c: c.name)
        },
    }


def _crawl_dump(c: CrawlConfig) -> dict[str, int]:
    return {
        **({"workers": c.workers} if c.workers is not None else {}),
        **({"max_memory_mb": c.max_memory_mb} if c.max_memory_mb != CrawlConfig.max_memory_mb else {}),
    }


def save(paths: Paths, config: Config) -> None:
    jsonfile.write_atomic(paths.config_file, dump(config))
