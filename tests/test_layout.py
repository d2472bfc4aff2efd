"""The architecture, enforced: install layout, import direction, a light hook path."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = (
    "dulwich",
    "onnxruntime",
    "tokenizers",
    "qdrant_client",
    "qdrant_edge",
    "tree_sitter",
    "apscheduler",
    "mcp",
)


def test_component_folders_import_only_as_monodex() -> None:
    assert importlib.util.find_spec("hooks") is None
    assert importlib.util.find_spec("indexer") is None
    assert importlib.util.find_spec("monodex.indexer") is not None
    assert importlib.util.find_spec("monodex.hooks") is not None


def _imports(folder: Path) -> set[tuple[str, str]]:
    found = set()
    for file in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add((str(file.relative_to(ROOT)), node.module))
            elif isinstance(node, ast.Import):
                found.update((str(file.relative_to(ROOT)), a.name) for a in node.names)
    return found


def test_dependencies_point_one_way() -> None:
    rules = {
        "hooks": ("monodex.indexer", "monodex.scheduler", "monodex.commands"),
        "indexer": ("monodex.scheduler", "monodex.hooks", "monodex.commands"),
        "scheduler": ("monodex.hooks", "monodex.commands"),
    }
    bad = [
        (f, m) for folder, banned in rules.items() for f, m in _imports(ROOT / folder) if m.startswith(banned)
    ]
    assert bad == []


def test_heavy_dependencies_have_one_importer_each() -> None:
    owners = {
        "dulwich": {"indexer/gitobjects.py"},
        "onnxruntime": {"indexer/embed.py"},
        "tokenizers": {"indexer/embed.py"},
        "qdrant_edge": {"indexer/store/edge.py"},
        "qdrant_client": {"indexer/store/server.py"},
        "tree_sitter": {"indexer/chunkers/typescript.py"},
        "tree_sitter_typescript": {"indexer/chunkers/typescript.py"},
        "apscheduler": {"scheduler/runner.py"},
        "mcp": {"monodex/front/mcp.py"},
    }
    everything = set()
    for folder in ("monodex", "hooks", "scheduler", "indexer", "systemd"):
        everything |= _imports(ROOT / folder)
    for module, allowed in owners.items():
        importers = {f for f, m in everything if m == module or m.startswith(module + ".")}
        assert importers <= allowed, (module, importers - allowed)


def test_cli_start_imports_no_heavy_dependency() -> None:
    code = "import sys, monodex.main; print(','.join(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.strip().split(","))
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


def test_the_kernel_imports_no_component_and_no_sdk() -> None:
    """monodex/*.py is the kernel every part may import: it reaches into none of them."""
    banned = ("monodex.indexer", "monodex.scheduler", "monodex.front", "mcp", "pydantic")
    kernel = {(f, m) for f, m in _imports(ROOT / "monodex") if f.count("/") == 1}
    bad = [(f, m) for f, m in kernel if any(m == b or m.startswith(b + ".") for b in banned)]
    assert bad == []


def test_the_front_reaches_the_indexer_only_through_the_executor() -> None:
    """The index is reached through one door: route.py (socket or local); commands that never
    touch the index (a dry run, chunk, doctor's file checks) may call the indexer directly."""
    found = _imports(ROOT / "monodex" / "front") | _imports(ROOT / "monodex" / "commands")
    users = {f for f, m in found if m.startswith("monodex.indexer")}
    assert users <= {
        "monodex/front/route.py",
        "monodex/commands/crawl.py",  # --dry-run reads git only, never the index
        "monodex/commands/chunk.py",  # chunks a file: no index
        "monodex/commands/doctor.py",  # checks the model files and repositories themselves
    }
