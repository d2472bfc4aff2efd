"""`monodex status` with the runner down reads the shard and the branches without loading the
scheduler, git objects, tree-sitter or the model (issue 13: it loaded dulwich and tree-sitter)."""

from __future__ import annotations

import json
import subprocess
import sys

from monodex.main import main

NOT_LOADED = (
    "apscheduler",
    "dulwich",
    "tree_sitter",
    "onnxruntime",
    "tokenizers",
    "mcp",
    "pydantic",
    "numpy",
    "structlog",
)


def test_status_with_the_runner_down_loads_none_of_the_heavy_parts(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"src/a.ts": "export const a = 1;\n"}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json"]) == 0
    r.write("src/b.ts", "export const b = 2;\n")
    r.commit("b")  # main moved: status must read the branch to say stale
    code = (
        "import json, sys; from monodex.disk import paths; from monodex.front import render, status; "
        "r = status.collect(paths.resolve()); render.status(r); "
        "print(json.dumps([r['labels'], sorted({m.split('.')[0] for m in sys.modules})]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    labels, loaded = json.loads(out)
    assert [(lb["label"], lb["freshness"], lb["branch"]) for lb in labels] == [("main", "stale", "main")]
    assert labels[0]["branch_commit"] == r.head()
    assert not set(NOT_LOADED) & set(loaded)
