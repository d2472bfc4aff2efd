"""A command that finds the embedded index taken names the process holding it (issue 15)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from monodex.indexer.store.edge import EdgeStore

DIM = 4


def _try_count(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    code = (
        "import sys; from pathlib import Path; import monodex.indexer.store.edge as e;"
        "from monodex.indexer.store.base import Filter; from monodex.errors import MonodexError;"
        "e.LOCK_WAIT_SECONDS = 0.3\n"
        "try:\n"
        f"    e.EdgeStore(Path({str(tmp_path)!r}), 'monodex').count(Filter())\n"
        "except MonodexError as exc:\n"
        "    sys.exit(exc.render())\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


@pytest.mark.parametrize(
    ("argv", "shown", "advice"),
    [
        (["/venv/bin/monodex", "crawl", "--catalog", "acme"], "monodex crawl --catalog acme", "kill"),
        (["/x/monodex/__main__.py", "runner"], "monodex runner", "monodex status"),
    ],
)
def test_a_busy_index_names_the_holders_command(tmp_path, monkeypatch, argv, shown, advice) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(sys, "argv", argv)
    holder = EdgeStore(tmp_path, "monodex")
    holder.ensure_collection(dim=DIM, embedder_id="e")
    proc = _try_count(tmp_path)
    holder.close()
    assert proc.returncode != 0
    assert f"another process, '{shown}', (pid {os.getpid()};" in proc.stderr and advice in proc.stderr, (
        proc.stderr
    )
    if "crawl" in shown:
        assert "stop the monodex runner" not in proc.stderr  # no runner is involved
