"""A new user's first hour with the CLI (issue 22): flags where the README puts them, suggestions
for typos, errors as JSON under --json, no log chatter on a terminal, a broken config said once."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from monodex.disk import paths
from monodex.front import render
from monodex.main import build_parser, main

MDX = [sys.executable, "-m", "monodex"]


def test_crawl_accepts_v_after_the_command_as_the_readme_shows(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "-v"
    )
    assert code == 0, err
    assert "libraries/net/src/retry.ts" in out  # -v lists the files like --files
    assert run_json("catalog", "list", "-v")[0] == 0  # after a sub-command's action too


def test_every_command_help_says_its_whole_first_paragraph() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = sub.choices["status"].format_help()  # type: ignore[attr-defined]
    assert "each label's freshness." in " ".join(text.split())


def test_a_mistyped_flag_gets_a_suggestion(run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("search", "--lable", "main", "--text", "x")
    assert code == 2 and "--lable" in err and "did you mean --label?" in err
    assert "run 'monodex search --help'" in err


def test_a_mistyped_flag_is_one_short_error_and_never_a_search(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: `--limt 3 foo` printed a 12-line usage block and took `3` as the question."""
    code, out, err = run_json("search", "--limt", "3", "foo")
    assert code == 2 and not out
    assert err.splitlines() == [
        "error: unknown option --limt (did you mean --limit?)",
        "hint: run 'monodex search --help' for its options",
    ]
    code, _, err = run_json("labels", "-x")
    assert code == 2 and err.startswith("error: unknown option -x\n")


def test_fresh_takes_a_number_and_leaves_a_word_as_the_question(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    """Issue 35: `search --fresh "timing"` said "invalid float value: 'timing'"."""
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    where = ("--catalog", "acme", "--label", "main", "--json")
    code, found, err = run_json("search", *where, "--fresh", "retry with exponential backoff")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "libraries/net/src/retry.ts"
    assert found["freshness"]["wait"]["seconds"] == 30
    code, found, err = run_json("search", *where, "--fresh", "5", "retry with exponential backoff")
    assert code == 0 and found["freshness"]["wait"]["seconds"] == 5, err
    code, _, err = run_json("search", *where, "colors", "--fresh", "retry")
    assert code == 2 and "given twice: 'colors' and 'retry'" in err


def test_search_takes_the_question_as_a_positional_argument(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    code, found, err = run_json(
        "search", "retry with exponential backoff", "--catalog", "acme", "--label", "main", "--json"
    )
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "libraries/net/src/retry.ts"
    code, _, err = run_json("search", "--catalog", "acme", "--label", "main")
    assert code == 2 and "no question given" in err
    code, _, err = run_json("search", "one", "--text", "two", "--catalog", "acme", "--label", "main")
    assert code == 2 and "given twice" in err


def test_a_repeated_label_is_an_error_not_the_last_one(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json("search", "x", "--catalog", "acme", "--label", "main", "--label", "other")
    assert code == 2 and "--label was given twice" in err


def test_with_json_errors_are_one_json_object_on_stderr(monorepo, run_json) -> None:  # type: ignore[no-untyped-def]
    code, out, err = run_json("search", "x", "--catalog", "nope", "--label", "main", "--json")
    assert code == 2 and not out
    assert json.loads(err) == {
        "error": "unknown catalog 'nope' (registered: acme)",
        "hint": "register it with 'monodex catalog add nope /path/to/repo'",
    }
    code, out, err = run_json("search", "x", "--lable", "main", "--json")  # argparse's own errors too
    assert code == 2 and not out
    assert json.loads(err)["error"] == "unknown option --lable (did you mean --label?)"


def _pty_run(*argv: str, cwd: Path) -> str:
    """The command with stderr on a terminal (stdout a pipe): what a person sees."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen([*MDX, *argv], stdout=subprocess.PIPE, stderr=follower, cwd=cwd)
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the command closed its end
            break
        if not chunk:
            break
        seen += chunk
    proc.communicate(timeout=60)
    os.close(leader)
    return seen.decode(errors="replace")


def test_no_log_lines_on_a_terminal_json_lines_when_not_one(monorepo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    crawl = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD")
    err = _pty_run(*crawl, cwd=tmp_path)
    assert "history.counted" not in err and '{"' not in err
    err = _pty_run("labels", "rm", "--catalog", "acme", "--label", "main", cwd=tmp_path)
    assert "label.removed" not in err and '{"' not in err
    subprocess.run([*MDX, *crawl], capture_output=True, cwd=tmp_path, check=True)
    rm = ("labels", "rm", "--catalog", "acme", "--label", "main")
    piped = subprocess.run([*MDX, *rm], capture_output=True, text=True, cwd=tmp_path, check=True)
    events = [json.loads(line)["event"] for line in piped.stderr.splitlines() if line.startswith("{")]
    assert "label.removed" in events  # a script or a log collector still gets them


@pytest.mark.parametrize("argv", [("labels",), ("status",), ("catalog", "list"), ("search", "x"), ("use",)])
def test_a_config_with_a_syntax_error_stops_every_command_alike(monorepo, run_json, argv) -> None:  # type: ignore[no-untyped-def]
    paths.resolve().config_file.write_text('{"catalogs": ')
    code, _, err = run_json(*argv)
    assert code == 2, err
    assert "config.json is not valid JSON" in err and "fix or delete" in err


def test_labels_with_a_broken_config_exits_2_even_when_the_runner_answers(monorepo, start_runner) -> None:  # type: ignore[no-untyped-def]
    start_runner(drain_seconds=0.2)
    assert subprocess.run([*MDX, "labels"], capture_output=True).returncode == 0
    good = paths.resolve().config_file.read_text()
    paths.resolve().config_file.write_text('{"catalogs": ')
    done = subprocess.run([*MDX, "labels"], capture_output=True, text=True)
    paths.resolve().config_file.write_text(good)  # the runner reads it again as it stops
    assert done.returncode == 2 and "is not valid JSON" in done.stderr


def test_doctor_says_config_json_does_not_exist_and_what_to_do(run_json) -> None:  # type: ignore[no-untyped-def]
    code, found, _ = run_json("doctor", "--json")
    config = next(c for c in found["checks"] if c["check"] == "config")
    assert config["level"] == "warn" and "does not exist" in config["detail"]
    assert "monodex catalog add" in config["hint"]


def test_status_never_says_100_percent_with_chunks_to_go() -> None:
    line = render._dense_text({"coverage": 1.0, "pending": 1, "state": "filling"})  # 1 of 20,001
    assert "99%" in line and "(1 chunk to go" in line
    assert "(2 chunks to go" in render._dense_text({"coverage": 0.5, "pending": 2, "state": "filling"})
    assert "dense vectors 99% done" in render.freshness_line({"dense_coverage": 0.9996})


SCHEDULER_TS = """/** Queues a job to run after the current flush of the scheduler. */
export function queueJob(job: () => void): void {
  queue.push(job);
}
"""


def test_scoped_package_names_read_as_written_in_chunk_search_and_view(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(
        {
            "packages/runtime-core/package.json": json.dumps({"name": "@vue/runtime-core"}),
            "packages/runtime-core/src/scheduler.ts": SCHEDULER_TS,
        },
        name="vue",
    )
    code, out, _ = run_json("chunk", str(repo.path / "packages/runtime-core/src/scheduler.ts"))
    assert code == 0 and "@vue/runtime-core:scheduler.ts:queueJob" in out and "%40" not in out
    assert main(["catalog", "add", "vue", str(repo.path)]) == 0
    assert run_json("crawl", "--catalog", "vue", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    code, out, _ = run_json("search", "queue a job", "--catalog", "vue", "--label", "main")
    assert code == 0 and "@vue/runtime-core:scheduler.ts:queueJob" in out and "%40" not in out
    code, found, _ = run_json("search", "queue a job", "--catalog", "vue", "--label", "main", "--json")
    assert found["results"][0]["breadcrumb"].startswith("%40vue/")  # stored as the original stores it
    code, out, _ = run_json(
        "view", "--catalog", "vue", "--label", "main", "--id", found["results"][0]["file_id"]
    )
    assert code == 0 and "@vue/runtime-core:scheduler.ts" in out and "%40" not in out
