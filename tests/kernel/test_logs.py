"""The runner's log: everything it reports, its own events and APScheduler's, is one stream of
structlog JSON lines in runner.log (and stderr)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest

from monodex.observe import logs


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_apscheduler_goes_through_structlog_and_its_busy_skips_are_debug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log_file = tmp_path / "runner.log"
    logs.configure(json_lines=True, log_file=log_file)
    scheduler = logging.getLogger("apscheduler.scheduler")
    for _ in range(3):  # every drain interval while a long refresh holds the job
        scheduler.warning(
            'Execution of job "%s" skipped: maximum number of running instances reached (%d)', "drain", 1
        )
    scheduler.info("Added job %r", "drain")  # its per-run chatter stays out at INFO
    try:
        raise RuntimeError("disk on fire")
    except RuntimeError:
        logging.getLogger("apscheduler.executors.default").exception('Job "%s" raised an exception', "drain")
    err = capsys.readouterr().err
    assert "maximum number of running instances" not in err and "Added job" not in err
    [line] = _lines(log_file)
    assert line["event"] == "apscheduler.log" and line["level"] == "error"
    assert (
        line["message"] == 'Job "drain" raised an exception'
        and line["logger"] == "apscheduler.executors.default"
    )
    assert "RuntimeError: disk on fire" in str(line["exception"])
    assert json.loads(err.strip())["event"] == "apscheduler.log"  # stderr gets the same event


def test_a_runner_exception_reaches_runner_log_with_its_traceback(tmp_path: Path) -> None:
    log_file = tmp_path / "runner.log"
    logs.configure(json_lines=False, log_file=log_file)  # a human on the terminal, JSON in the file
    try:
        {}["missing"]
    except KeyError:
        logs.get("monodex.runner").exception("job.crashed", job="drain")
    [line] = _lines(log_file)
    assert line["event"] == "job.crashed" and line["job"] == "drain"
    assert "KeyError: 'missing'" in str(line["exception"]) and "exc_info" not in line


def test_with_verbose_the_busy_skips_are_shown_at_debug(tmp_path: Path) -> None:
    log_file = tmp_path / "runner.log"
    logs.configure(verbose=True, json_lines=True, log_file=log_file)
    logging.getLogger("apscheduler.scheduler").warning(
        'Execution of job "%s" skipped: maximum number of running instances reached (%d)', "drain", 1
    )
    assert _lines(log_file) == []  # the file keeps INFO and up: the skip is expected, not news


def test_structlog_is_loaded_at_the_first_event_and_configured_then(tmp_path: Path) -> None:
    """A command that logs nothing, or only below its level, does not import structlog (33 ms of a
    label one commit away, issue 36); the first event still comes out as configure() asked (JSON lines, INFO and up, warnings of a CLI on a pipe included)."""
    code = (
        "import sys\n"
        "from monodex.observe import logs\n"
        "logs.configure(cli=True, log_file=sys.argv[1] and __import__('pathlib').Path(sys.argv[1]))\n"
        "print('structlog' in sys.modules)\n"
        "log = logs.get('monodex.test')\n"
        "log.debug('dropped.debug')\n"
        "print('structlog' in sys.modules)\n"  # an event below the level imports nothing
        "log.info('kept.info', n=1)\n"
        "print('structlog' in sys.modules)\n"
    )
    log_file = tmp_path / "runner.log"
    done = subprocess.run(
        [sys.executable, "-c", code, str(log_file)], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.split() == ["False", "False", "True"]
    [event] = [json.loads(line) for line in done.stderr.splitlines()]  # stderr is a pipe: JSON lines
    assert event["event"] == "kept.info" and event["n"] == 1 and event["level"] == "info"
    assert [line["event"] for line in _lines(log_file)] == ["kept.info"]  # the tee is configured too


def test_a_second_threads_first_event_waits_for_the_configuration(tmp_path: Path) -> None:
    """Two threads' first events at once: the one that does not apply the settings waits for
    them instead of going out through structlog's defaults (to stdout, not as JSON)."""
    code = (
        "import threading, time\n"
        "from monodex.observe import logs\n"
        "logs.configure(json_lines=True)\n"
        "apply = logs._apply\n"
        "def slow(*a, **k):\n"
        "    time.sleep(0.3)\n"
        "    apply(*a, **k)\n"
        "logs._apply = slow\n"
        "t = threading.Thread(target=lambda: logs.get('one').warning('first.thread'))\n"
        "t.start(); time.sleep(0.1)\n"
        "logs.get('two').warning('second.thread')\n"
        "t.join()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout == ""
    events = sorted(json.loads(line)["event"] for line in done.stderr.splitlines())
    assert events == ["first.thread", "second.thread"]


def test_a_signal_handler_that_logs_during_the_structlog_import_is_heard_after_it(tmp_path: Path) -> None:
    """The runner's SIGTERM handler logs. A SIGTERM that lands while the first event is importing
    structlog ran the handler inside that import: it got the half-imported module, the import
    failed, and the runner crashed (a CI run, issue 25's lazy import). The handler's event now
    waits for the import and comes out after it."""
    code = (
        "import importlib.abc, os, signal, sys\n"
        "from monodex.observe import logs\n"
        "logs.configure(json_lines=True)\n"
        "class Interrupt(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'structlog.processors':\n"
        "            os.kill(os.getpid(), signal.SIGUSR1)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Interrupt())\n"
        "signal.signal(signal.SIGUSR1, lambda *_: logs.get('h').warning('runner.stopping'))\n"
        "logs.get('s').warning('socket.listening')\n"
        "logs.get('s').warning('after')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    events = [json.loads(line)["event"] for line in done.stderr.splitlines()]
    assert events == ["runner.stopping", "socket.listening", "after"]


def _append_many(path: Path, tag: int) -> None:
    from monodex.observe import logrotate

    for i in range(400):
        logrotate.append(path, json.dumps({"w": tag, "i": i}) + "\n", max_bytes=4096, backups=2)


def test_concurrent_appends_rotate_without_passing_the_bound(tmp_path: Path) -> None:
    """Hooks run side by side: four processes appending past the bound many times over leave
    the log and its two backups, each whole JSON lines, none above the bound by more than the
    lines written while it was being rotated."""
    import multiprocessing

    log = tmp_path / "hooks.log"
    procs = [
        multiprocessing.get_context("fork").Process(target=_append_many, args=(log, n)) for n in range(4)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    files = sorted(tmp_path.iterdir())
    assert [f.name for f in files] == ["hooks.log", "hooks.log.1", "hooks.log.2"]
    for f in files:
        assert f.stat().st_size < 4096 + 4 * 40
        _lines(f)  # every line whole
