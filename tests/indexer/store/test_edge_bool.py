"""qdrant-edge-py 0.9 reads a Python bool in a filter as the integer 1/0, which matches no bool
payload. The Edge adapter hands it a bool it reads as one, without importing numpy (~45 ms of
every command that filters on dense_pending: a phase-one crawl, a lexical search)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = """
import json, sys, uuid
from pathlib import Path
from monodex.indexer.store.base import Filter, Match, Point, SparseVector
from monodex.indexer.store.edge import EdgeStore
s = EdgeStore(Path(sys.argv[1]), "monodex")
s.ensure_collection(dim=4, embedder_id="e")
ids = [str(uuid.UUID(int=i + 1)) for i in range(5)]
s.upsert([
    Point(i, {"source_type": "code", "dense_pending": n < 3}, None, SparseVector((1,), (1.0,)))
    for n, i in enumerate(ids)
])
def pending(value):
    return s.count(Filter(must=(Match("dense_pending", value),)))
counts = {"true": pending(True), "false": pending(False)}
s.set_dense([(ids[0], [1.0, 0.0, 0.0, 0.0])])
counts["true after a vector"] = pending(True)
counts["not pending"] = s.count(Filter(must_not=(Match("dense_pending", True),)))
s.close()
print(json.dumps({**counts, "numpy": "numpy" in sys.modules}))
"""


def test_bool_filters_match_bool_payloads_and_leave_numpy_unloaded(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert json.loads(done.stdout) == {
        "true": 3,
        "false": 2,
        "true after a vector": 2,
        "not pending": 3,
        "numpy": False,
    }


def test_counting_tokens_loads_no_numpy_and_embedding_still_works(tmp_path: Path) -> None:
    """A phase-one crawl sizes chunks by the model's tokens and embeds nothing."""
    code = (
        "import sys\n"
        "from monodex.indexer.embed.model import Embedder\n"
        "from monodex.indexer.embed.spec import spec_for\n"
        "e = Embedder(spec_for('default'), threads=1, batch_size=2)\n"
        "n = e.count_tokens('def parse_config(path): return load(path)')\n"
        "before = 'numpy' in sys.modules\n"
        "v = e.embed_documents(['parse the config', 'write the log'])\n"
        "print(n > 5, before, v.shape == (2, e.dim), abs(float((v[0] ** 2).sum()) - 1) < 1e-3)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.split() == ["True", "False", "True", "True"]
