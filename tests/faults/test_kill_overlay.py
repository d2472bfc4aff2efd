"""Crash safety of a worktree overlay's update (issue 21): a search SIGKILLed while it stores the
worktree's edited files leaves every later search correct: each file shows one version, never a
mix of two generations, never the committed text; the next search finishes the job and nothing of
the interrupted generation is left behind."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from monodex.indexer.members import keys as membership
from monodex.indexer.points import filters, overlaymeta
from monodex.indexer.points import membership as members
from monodex.indexer.session import Session

from monodex.disk import paths
from monodex.main import main
from monodex.settings import config

MDX = [sys.executable, "-m", "monodex"]
FILES = 120


def _module(f: int, word: str) -> str:
    body = [
        f"/** Step {i} of module {f}: {word}. */\n"
        f"export function {word}Step{f}x{i}(input: string): string {{\n"
        f"  return input.split('{word}{i}').join('/');\n}}\n"
        for i in range(8)
    ]
    return "\n".join(body)


def _write_all(root: Path, word: str) -> None:
    for f in range(FILES):
        (root / f"src/mod{f}.ts").write_text(_module(f, word))


def _search(root: Path, text: str) -> dict[str, Any]:
    argv = [*MDX, "search", "--catalog", "acme", "--label", "main", "--mode", "lexical", "--limit", "100"]
    done = subprocess.run(
        [*argv, "--per-file", "20", "--text", text, "--worktree", str(root), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _words_by_path(found: dict[str, Any]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in found["results"]:
        words = {w for w in ("committed", "alpha", "beta") if f"{w}Step" in r["text"]}
        out.setdefault(r["relative_path"], set()).update(words)
    return out


def _seen_without_update() -> dict[str, set[str]]:
    """What a search sees in the index as the kill left it (before any update repairs it)."""
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        state = overlaymeta.list_all(s.store)[0]
        main = members.of(s.store, "acme:main")
        hidden = tuple(membership.files_at(s.store, main, state.dirty) - state.file_ids)
        flt = filters.overlay_chunks(main, state.current, hidden)
        rows = [r.payload for r in s.store.scroll(flt, payload_keys=("relative_path", "text"))]
    return _words_by_path({"results": rows})


def _memberships() -> tuple[set[str], list[overlaymeta.OverlayState]]:
    p = paths.resolve()
    with Session(config.load(p), p) as s:
        held = set()
        for r in s.store.scroll(filters.chunks(), payload_keys=("active_label_ids",)):
            held.update(m for m in r.payload["active_label_ids"] if overlaymeta.is_overlay(m))
        return held, overlaymeta.list_all(s.store)


def test_a_search_killed_while_updating_the_overlay_leaves_searches_correct(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({f"src/mod{f}.ts": _module(f, "committed") for f in range(FILES)}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    capsys.readouterr()
    _write_all(repo.path, "alpha")
    assert set().union(*_words_by_path(_search(repo.path, "alphaStep0x1")).values()) == {"alpha"}
    landed = 0
    for trial, delay in enumerate((0.0, 0.1, 0.3, 0.6)):
        word = "beta" if trial % 2 == 0 else "alpha"
        _write_all(repo.path, word)
        proc = subprocess.Popen([*MDX, "-v", "search", "--catalog", "acme", "--label", "main", "--text", "x",
                                 "--worktree", str(repo.path), "--json"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert proc.stderr is not None
        for line in proc.stderr:  # the new generation is announced: its files are being stored
            if "overlay.updating" in line:
                break
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        _, states = _memberships()
        landed += bool(states and states[0].pending)
        # whatever the kill interrupted: one version a file, never the committed text
        left = _seen_without_update()
        assert len(left) == FILES and all(len(words) == 1 for words in left.values()), left
        assert set().union(*left.values()) <= {"alpha", "beta"}, left
        # the next search finishes the update: only the last edit is found, nothing else is held
        after = _words_by_path(_search(repo.path, "alphaStep0x1 betaStep0x1 committedStep0x1"))
        assert after and set().union(*after.values()) == {word}
        held, states = _memberships()
        assert held == {states[0].current} and not states[0].pending
        if landed:
            break
    assert landed, "no kill landed during an update (a loaded machine): safety was checked, not recovery"
