"""Crash safety of a label as a base plus what changed (issue 25): `monodex crawl` SIGKILLed while it
creates a label on main's base, or moves it, leaves the label exactly at one of its two states
(never a mix, never a file in two versions or in part); the next crawl converges; and what the
kill left behind (a delta point nobody names, chunks no label holds yet) is gc's, not a label's."""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import time
from typing import Any

from monodex.indexer.points import labelmeta, membership
from monodex.indexer.session import Session
from monodex.indexer.upkeep import gc

from monodex.disk import paths
from monodex.main import main
from monodex.schema.payload import Key
from monodex.settings import config
from tests.conftest import label_filter

MDX = [sys.executable, "-m", "monodex"]
FILES = 400


def _module(f: int, word: str) -> str:
    return "\n".join(
        f"/** Step {i} of module {f}: {word}. */\nexport function {word}Step{f}x{i}(s: string): string {{\n"
        f"  return s.split('{word}{i}').join('/');\n}}\n"
        for i in range(6)
    )


def _held() -> dict[str, str]:
    """path -> blob of every file the label holds; each file whole: all its chunks, one version."""
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        blobs: dict[str, str] = {}
        chunks: dict[str, list[int]] = {}
        keys = ("relative_path", "blob_id", "chunk_ordinal", "chunk_count")
        for r in s.store.scroll(label_filter(s.store, "acme:feature"), payload_keys=keys):
            path = str(r.payload["relative_path"])
            assert blobs.setdefault(path, str(r.payload["blob_id"])) == r.payload["blob_id"], path
            chunks.setdefault(path, []).append(int(r.payload["chunk_ordinal"]))
            assert len(chunks[path]) <= int(r.payload["chunk_count"])
        return blobs


def _tree(repo: Any, commit: str) -> dict[str, str]:
    out = repo.git("ls-tree", "-r", commit).splitlines()
    return {line.split("\t")[1]: line.split()[2] for line in out}


def _crawl(commit: str, stderr: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    argv = [*MDX, "crawl", "--catalog", "acme", "--label", "feature", "--commit", commit, "--no-wait-dense"]
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr)


def _killed_mid_crawl(commit: str, delay: float) -> None:
    """SIGKILL `delay` seconds after the crawl reports its first progress (on a terminal, which a
    pty is): it has marked the label in progress and is storing files."""
    master, slave = pty.openpty()
    proc = _crawl(commit, stderr=slave)
    os.close(slave)
    seen = b""
    deadline = time.monotonic() + 60
    while b"/" not in seen and time.monotonic() < deadline:  # "files 3/200", the progress line
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                seen += os.read(master, 4096)
            except OSError:
                break
        if proc.poll() is not None:
            break
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    os.close(master)


def _mid_crawl() -> bool:
    """The kill landed between the crawl's start mark and its switch."""
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        state = labelmeta.read(s.store, "acme:feature")
        return state is not None and not state.crawl_complete


def test_a_crawl_killed_while_creating_or_moving_a_label_leaves_it_whole(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/mod{f}.ts": _module(f, "main") for f in range(FILES)}, name="acme")
    main_commit = repo.head()
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--no-wait-dense"]) == 0
    repo.git("checkout", "-q", "-b", "feature")
    commits = []
    for word in ("alpha", "beta"):  # each commit changes half the files: under the rebase limit (256)
        for f in range(0, FILES, 2):
            repo.write(f"src/mod{f}.ts", _module(f, word))
        commits.append(repo.commit(word))
    trees = {c: _tree(repo, c) for c in (main_commit, *commits)}
    capsys.readouterr()
    landed = 0
    previous = None  # the label's commit before each kill (None: not indexed)
    for trial, delay in enumerate((0.0, 0.05, 0.1, 0.2, 0.0, 0.4)):
        target = commits[trial % 2]
        _killed_mid_crawl(target, delay)
        landed += _mid_crawl()
        held = _held()
        allowed = [{} if previous is None else trees[previous], trees[target]]
        assert held in allowed, f"trial {trial}: a label between two states"
        assert subprocess.run([*MDX, "crawl", "--catalog", "acme", "--label", "feature", "--commit", target,
                               "--no-wait-dense"], capture_output=True).returncode == 0  # fmt: skip
        assert _held() == trees[target]
        previous = target
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        state = labelmeta.read(s.store, "acme:feature")
        assert state is not None and state.extra[Key.MEMBERSHIP_DELTA] in membership.deltas(s.store)
        gc.collect(s.store, "acme", dry_run=False, now=time.time() + 2 * gc.IN_PROGRESS_GRACE_SECONDS)
        assert list(membership.deltas(s.store)) == [state.extra[Key.MEMBERSHIP_DELTA]]  # one, the label's
    assert _held() == trees[previous]
    assert landed, "no kill landed mid-crawl (a loaded machine): safety was checked, not recovery"
