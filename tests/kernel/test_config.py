from __future__ import annotations

import json
from pathlib import Path

import pytest

from monodex.disk import paths
from monodex.errors import UsageError
from monodex.main import main
from monodex.settings import config


def _write(raw: object) -> Path:
    p = paths.resolve().config_file
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(raw) if not isinstance(raw, str) else raw)
    return p


def test_missing_config_gives_defaults() -> None:
    cfg = config.load(paths.resolve())
    assert cfg.qdrant.collection == "monodex"
    assert cfg.qdrant.url is None and cfg.catalogs == {}


def test_full_config_roundtrip(tmp_path: Path) -> None:
    raw = {
        "qdrant": {"url": "http://localhost:6333", "collection": "team", "api_key_env": "MY_KEY"},
        "embedder": {"model": "/models/jina", "threads": 4, "batch_size": 1},
        "crawl": {"workers": 3, "max_memory_mb": 1024},
        "catalogs": {
            "web": {"type": "monorepo", "path": str(tmp_path), "search": {"lexical_weight": 1.5}},
            "api": {"type": "monorepo", "path": str(tmp_path)},
        },
    }
    _write(raw)
    cfg = config.load(paths.resolve())
    assert cfg.catalogs["web"].search == config.SearchTuning(lexical_weight=1.5, history_weight=1.0)
    assert cfg.catalogs["api"].search == config.SearchTuning()
    dumped = config.dump(cfg)["catalogs"]
    assert dumped["web"]["search"] == {"lexical_weight": 1.5, "history_weight": 1.0}
    assert "search" not in dumped["api"]  # defaults are not written out
    assert cfg.qdrant.url == "http://localhost:6333" and cfg.qdrant.collection == "team"
    assert cfg.embedder.threads == 4 and cfg.catalogs["web"].path == tmp_path
    assert cfg.crawl.worker_count == 3 and cfg.crawl.max_memory_mb == 1024
    config.save(paths.resolve(), cfg)
    assert config.load(paths.resolve()).catalogs == cfg.catalogs
    assert config.load(paths.resolve()).crawl == cfg.crawl


def test_the_model_uses_the_cores_through_one_session_each() -> None:
    """Issue 36: embedder.threads is the cores the model may use (default: all usable ones);
    embedder.workers the sessions sharing them (default one per core: several sessions of one
    thread did more per CPU-second than one of many threads); workers 1 is the arrangement before."""
    cores = config.usable_cores()
    default = config.EmbedderConfig()
    assert default.sessions == min(cores, config.DEFAULT_SESSIONS)
    assert default.session_threads == max(1, cores // default.sessions)
    many = config.EmbedderConfig(threads=16)  # each session holds ~150 MB: 4 of 4 threads
    assert (many.sessions, many.session_threads) == (4, 4)
    two = config.EmbedderConfig(threads=2)
    assert (two.sessions, two.session_threads) == (2, 1)
    old = config.EmbedderConfig(threads=2, workers=1)
    assert (old.sessions, old.session_threads) == (1, 2)
    assert config.EmbedderConfig(threads=8, workers=3).session_threads == 2
    assert config.EmbedderConfig(threads=2, workers=5).sessions == 2  # never more than the cores
    _write({"embedder": {"threads": 2, "workers": 1}})
    cfg = config.load(paths.resolve())
    assert (cfg.embedder.sessions, cfg.embedder.session_threads) == (1, 2)
    assert config.dump(config.Config())["embedder"] == {"model": "default", "batch_size": 1}


def test_crawl_workers_default_to_the_cores_to_spare() -> None:
    crawl = config.load(paths.resolve()).crawl
    assert crawl.workers is None and crawl.max_memory_mb == 700
    assert crawl.worker_count == max(0, min(2, config.usable_cores() - 1))
    assert config.CrawlConfig(workers=0).worker_count == 0  # the crawl's own process only


def test_api_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    _write({"qdrant": {"url": "https://q.example", "api_key_env": "MY_KEY"}})
    monkeypatch.setenv("MY_KEY", "s3cret")
    assert config.load(paths.resolve()).qdrant.api_key == "s3cret"


@pytest.mark.parametrize(
    ("raw", "needle"),
    [
        ({"qdrant": {"colection": "x"}}, "qdrant: unknown field 'colection'"),
        ({"qdrant": {"collection": 3}}, "qdrant.collection: expected a string"),
        ({"qdrant": {"path": "relative/dir"}}, "qdrant.path: must be an absolute path"),
        ({"qdrant": {"url": "localhost:6333"}}, "qdrant.url: must start with http"),
        ({"catalogs": {"web": {"type": "monorepo"}}}, "catalogs.web.path: is required"),
        ({"catalogs": {"web": {"type": "polyrepo", "path": "/x"}}}, "catalogs.web.type"),
        ({"catalogs": {"Web": {"type": "monorepo", "path": "/x"}}}, "invalid catalog name 'Web'"),
        ({"catalogs": []}, "catalogs: expected an object"),
        ({"embedder": {"threads": 0}}, "embedder.threads: must be at least 1"),
        ({"embedder": {"threads": True}}, "embedder.threads: expected an integer"),
        ({"embedder": {"workers": 0}}, "embedder.workers: must be at least 1"),
        ({"crawl": {"workers": -1}}, "crawl.workers: must be at least 0"),
        ({"crawl": {"max_memory_mb": 64}}, "crawl.max_memory_mb: must be at least 256"),
        ({"crawl": {"max_memory_mb": "1G"}}, "crawl.max_memory_mb: expected an integer"),
        ({"crawl": {"threads": 2}}, "crawl: unknown field 'threads'"),
        ({"extra": 1}, "unknown field 'extra'"),
        (
            {"catalogs": {"web": {"type": "monorepo", "path": "/x", "search": {"lexical_weight": -1}}}},
            "catalogs.web.search.lexical_weight: -1 is not a number from 0 to 10",
        ),
        (
            {"catalogs": {"web": {"type": "monorepo", "path": "/x", "search": {"history_weight": "low"}}}},
            "catalogs.web.search.history_weight: 'low' is not a number from 0 to 10",
        ),
        (
            {"catalogs": {"web": {"type": "monorepo", "path": "/x", "search": {"dense_weight": 2}}}},
            "catalogs.web.search: unknown field 'dense_weight'",
        ),
        ("{not json", "is not valid JSON"),
    ],
)
def test_validation_errors_name_path_and_problem(raw: object, needle: str) -> None:
    _write(raw)
    with pytest.raises(UsageError) as info:
        config.load(paths.resolve())
    assert needle in info.value.problem
    assert info.value.hint


def test_catalog_add_list_rm(git_repo, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "x"})
    assert main(["catalog", "add", "web", str(repo.path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["path"] == str(repo.path.resolve())
    assert main(["catalog", "add", "web", str(repo.path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert main(["catalog", "list", "--json"]) == 0
    assert [c["name"] for c in json.loads(capsys.readouterr().out)["catalogs"]] == ["web"]
    assert main(["catalog", "rm", "web"]) == 0
    assert config.load(paths.resolve()).catalogs == {}


def test_catalog_add_rejects_non_repositories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["catalog", "add", "web", str(tmp_path)]) == 2
    assert "not the top of a git work tree" in capsys.readouterr().err
    assert main(["catalog", "add", "web", str(tmp_path / "nope")]) == 2
    assert main(["catalog", "add", "Bad_Name", str(tmp_path)]) == 2
    assert "invalid catalog name" in capsys.readouterr().err


def test_a_url_password_is_redacted_in_one_place() -> None:
    from monodex.settings.config import redact, redacted_url

    assert redacted_url("http://admin:SECRET@db.lan:6333/x") == "http://admin:***@db.lan:6333/x"
    assert redacted_url("https://token@db.lan") == "https://token@db.lan"  # a name, no password
    assert redacted_url("http://db.lan:6333") == "http://db.lan:6333"
    assert redacted_url("http://a:b:c@h") == "http://a:***@h"  # the password holds a colon
    text = "GET http://admin:SECRET@db.lan:6333/x failed; auth admin:SECRET"
    assert redact(text, "http://admin:SECRET@db.lan:6333/x") == (
        "GET http://admin:***@db.lan:6333/x failed; auth admin:***"
    )


def test_secret_query_parameters_are_redacted_by_the_same_function() -> None:
    """Issue 35, item 5: `?api_key=...` and its kin are secrets too; other parameters stay."""
    from monodex.settings.config import redact, redacted_url

    assert (
        redacted_url("http://db.lan:6333/?api_key=K1&timeout=5")
        == "http://db.lan:6333/?api_key=***&timeout=5"
    )
    for name in ("apikey", "apiKey", "api-key", "key", "token", "access_token", "secret", "password", "sig"):
        assert redacted_url(f"https://db.lan?{name}=K1") == f"https://db.lan?{name}=***", name
    assert redacted_url("http://u:P@db.lan?key=K1#frag") == "http://u:***@db.lan?key=***#frag"
    assert redacted_url("http://db.lan?prefix=v1&key=") == "http://db.lan?prefix=v1&key="  # nothing hidden
    text = "GET http://db.lan/?token=T0k%2Fen failed (token T0k/en)"
    assert redact(text, "http://db.lan/?token=T0k/en") == "GET http://db.lan/?token=*** failed (token ***)"
