"""Isolation that fails loudly, and one factory for real git repositories."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

_PINNED = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


# Temporary folders in memory where the machine has room there: Qdrant Edge syncs its files
# (~1,200 msync/fsync calls for a crawl of 10 files), which on a busy disk took a crawl from 2.4 s
# to 6.6 s. A shard holds ~100 MB of memory on tmpfs (its holes are allocated when it opens), so a
# passing test's folders go at its teardown (tmp_path_retention_policy "failed" in pyproject.toml,
# isolated_env below); a failing test's stay for a look, and the run's folder goes when all pass.
MEMORY_ROOT = Path("/dev/shm")
MEMORY_ROOM = 4 << 30


def pytest_configure(config: pytest.Config) -> None:
    if "PYTEST_DEBUG_TEMPROOT" in os.environ or config.option.basetemp is not None:
        return  # the developer chose (and xdist's workers get their folder from the controller)
    try:
        st = os.statvfs(MEMORY_ROOT)
    except OSError:
        return
    if os.access(MEMORY_ROOT, os.W_OK) and st.f_bavail * st.f_frsize >= MEMORY_ROOM:
        os.environ["PYTEST_DEBUG_TEMPROOT"] = str(MEMORY_ROOT)


_OUTCOMES = pytest.StashKey[dict[str, bool]]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    item.stash.setdefault(_OUTCOMES, {})[report.when] = not report.failed
    return report


@pytest.fixture(autouse=True)
def isolated_env(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """All four XDG dirs and HOME in a temp dir; inherited GIT_* removed; git pinned. The dir goes
    when the test passed (its index is ~100 MB on tmpfs)."""
    root = tmp_path_factory.mktemp("env")
    for var in list(os.environ):
        if var.startswith("GIT_") or var.startswith("PRE_COMMIT"):
            monkeypatch.delenv(var, raising=False)
    for var, sub in (
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_RUNTIME_DIR", "run"),
        ("HOME", "home"),
    ):
        (root / sub).mkdir()
        monkeypatch.setenv(var, str(root / sub))
    (root / "templates").mkdir()
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(root / "templates"))
    monkeypatch.setenv("MONODEX_FORBID_HOME", "1")
    for key, value in _PINNED.items():
        monkeypatch.setenv(key, value)
    yield root
    if all(request.node.stash.get(_OUTCOMES, {}).values()):
        shutil.rmtree(root, ignore_errors=True)


class GitRepo:
    """A real repository driven by the git CLI (tests only; monodex itself uses dulwich)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def git(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["git", *args], cwd=self.path, capture_output=True, text=True, check=False)
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
        return proc.stdout.strip()

    def write(self, rel: str, content: str | bytes) -> Path:
        target = self.path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_bytes(content.encode("utf-8"))
        return target

    def remove(self, rel: str) -> None:
        self.git("rm", "-q", "-r", rel)

    def commit(self, message: str = "change", *, add_all: bool = True) -> str:
        if add_all:
            self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")


@pytest.fixture
def git_repo(tmp_path: Path):  # type: ignore[no-untyped-def]
    """Factory: git_repo(files={...}, branch="main") -> GitRepo with one commit if files given."""
    counter = iter(range(1000))

    def make(
        files: dict[str, str | bytes] | None = None, *, branch: str = "main", name: str | None = None
    ) -> GitRepo:
        path = tmp_path / (name or f"repo{next(counter)}")
        path.mkdir()
        repo = GitRepo(path)
        repo.git("init", "-q", "-b", branch)
        for rel, content in (files or {}).items():
            repo.write(rel, content)
        if files:
            repo.commit("initial")
        return repo

    return make


@pytest.fixture
def run_json(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run the CLI in-process; return (exit code, parsed JSON stdout or None, stderr)."""

    from monodex.main import main

    def run(*argv: str) -> tuple[int, Any, str]:
        capsys.readouterr()
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, (json.loads(out) if out.strip() and "--json" in argv else out), err

    return run


@pytest.fixture
def crawl_files(git_repo, run_json):  # type: ignore[no-untyped-def]
    """crawl_files(files): a repository of `files` registered as catalog `acme` and its HEAD
    crawled into label `main`."""

    from monodex.main import main

    def crawl(files: dict[str, str | bytes]):  # type: ignore[no-untyped-def]
        repo = git_repo(files, name="acme")
        assert main(["catalog", "add", "acme", str(repo.path)]) == 0
        code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
        assert code == 0, err
        return repo

    return crawl


@pytest.fixture
def start_runner():  # type: ignore[no-untyped-def]
    """Factory: start_runner(drain_seconds) -> a real `monodex runner` process, listening; it is
    stopped with SIGTERM at teardown and must exit 0."""
    import signal
    import sys

    from monodex.scheduler.server import wait_listening

    from monodex.disk import paths

    procs: list[subprocess.Popen[str]] = []

    def start(drain_seconds: float) -> subprocess.Popen[str]:
        proc = subprocess.Popen(
            [sys.executable, "-m", "monodex", "runner", "--drain-seconds", str(drain_seconds)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert wait_listening(paths.resolve().socket_path, timeout=60), "the runner never listened"
        return proc

    yield start
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err


@pytest.fixture
def open_session():  # type: ignore[no-untyped-def]
    """open_session(shared=False) -> a Session over the isolated config and index, as the CLI
    opens one when no runner is up (shared=True: as the runner does). Use it in a `with`."""
    return _open_session


def _open_session(*, shared: bool = False):  # type: ignore[no-untyped-def]
    from monodex.indexer.session import Session

    from monodex.disk import paths
    from monodex.settings import config

    p = paths.resolve()
    return Session(config.load(p), p, shared=shared)


@pytest.fixture
def single_phase():  # type: ignore[no-untyped-def]
    """Call it to make refreshes embed before the label moves (embedder.two_phase false): for
    tests that need a refresh to take seconds (to watch it in progress, or to stop it at a bound),
    which phase one alone no longer does at test sizes."""
    return _single_phase


def _single_phase() -> None:
    """Refreshes embed before the label moves (embedder.two_phase false): for tests that need a
    refresh to take seconds (to watch it in progress, or to stop it at a bound), which phase one
    alone no longer does at test sizes."""
    from dataclasses import replace

    from monodex.disk import paths
    from monodex.settings import config

    p = paths.resolve()
    cfg = config.load(p)
    config.save(p, replace(cfg, embedder=replace(cfg.embedder, two_phase=False)))


@pytest.fixture
def tiny_model_folder(tmp_path: Path) -> Path:
    """Another model than the packaged one: an 8-dim ONNX graph (a lookup table, mean-pooled by
    monodex) with a word-level tokenizer, in a folder `embedder.model` can name."""
    import json

    import numpy as np
    import onnx
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer, models, pre_tokenizers

    words = "retry request backoff color terminal config load json file the a of with".split()
    vocab = {"[UNK]": 0, **{w: i for i, w in enumerate(words, start=1)}}
    table = np.random.default_rng(7).normal(size=(len(vocab), 8)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"])],
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "s"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["b", "s", 8])],
        [helper.make_tensor("table", TensorProto.FLOAT, table.shape, table.flatten())],
    )
    folder = tmp_path / "tiny-model"
    folder.mkdir()
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    onnx.save(model, folder / "model.onnx")
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    (folder / "monodex-model.json").write_text(json.dumps({"embedder_id": "tiny:v1", "max_tokens": 256}))
    return folder


def label_filter(store, label_id: str, *more):  # type: ignore[no-untyped-def]
    """The chunks a label holds, as stored now (its base and its changed files: points/membership.py)."""
    from monodex.indexer.points import filters, membership

    return filters.label_chunks(membership.of(store, label_id), *more)


class Killed(BaseException):
    """A SIGKILL at a chosen write: nothing after it runs (not an Exception: no handler catches it)."""


class KilledAt:
    """The real store, killed at its n-th write (upsert, set_payload or delete)."""

    def __init__(self, store: Any, n: int) -> None:
        self.store, self.left = store, n

    def _write(self, name: str, *args: Any) -> Any:
        self.left -= 1
        if self.left < 0:
            raise Killed(name)
        return getattr(self.store, name)(*args)

    def upsert(self, points: Sequence[Any]) -> None:
        self._write("upsert", points)

    def set_payload(self, ids: Sequence[str], payload: dict[str, Any]) -> None:
        self._write("set_payload", ids, payload)

    def delete(self, ids: Sequence[str]) -> None:
        self._write("delete", ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


@pytest.fixture
def bench_script(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Load a script of bench/ (a path under it) as a module. A script puts bench/ on sys.path and
    imports its neighbours (`_common`, `answers`): all undone after the test, so that nothing of
    bench/ shadows a module for the other tests."""
    import importlib.util
    import sys

    monkeypatch.setattr("sys.path", [*sys.path])
    for neighbour in ("_common", "answers"):
        monkeypatch.setitem(sys.modules, neighbour, None)  # undone last: the key ends as it was
        monkeypatch.delitem(sys.modules, neighbour)  # a fresh import of bench's own

    def load(relative: str) -> Any:
        path = Path(__file__).resolve().parents[1] / "bench" / relative
        spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
