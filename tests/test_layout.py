"""The architecture, enforced: install layout, import direction, a light hook path."""

from __future__ import annotations

import ast
import importlib.util
import re
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
                # `from monodex.indexer import session` imports monodex.indexer.session too
                found.update((str(file.relative_to(ROOT)), f"{node.module}.{a.name}") for a in node.names)
            elif isinstance(node, ast.Import):
                found.update((str(file.relative_to(ROOT)), a.name) for a in node.names)
    return found


def test_dependencies_point_one_way() -> None:
    rules = {
        "hooks": ("monodex.indexer", "monodex.scheduler", "monodex.commands", "monodex.front"),
        "indexer": ("monodex.scheduler", "monodex.hooks", "monodex.commands", "monodex.front"),
        "scheduler": ("monodex.hooks", "monodex.commands", "monodex.front"),
    }
    bad = [
        (f, m) for folder, banned in rules.items() for f, m in _imports(ROOT / folder) if m.startswith(banned)
    ]
    assert bad == []


def test_heavy_dependencies_have_one_importer_each() -> None:
    owners = {
        "dulwich": {"indexer/git/gitobjects.py"},
        "onnxruntime": {"indexer/embed/model.py"},
        "tokenizers": {"indexer/embed/model.py"},
        "qdrant_edge": {"indexer/store/edge.py"},
        "qdrant_client": {"indexer/store/server.py"},
        "tree_sitter": {"indexer/syntax/grammars.py"},
        "tree_sitter_typescript": {"indexer/syntax/grammars.py"},
        "apscheduler": {"scheduler/runner.py"},
        "mcp": {"monodex/front/mcp.py"},
    }
    everything = set()
    for folder in ("monodex", "hooks", "scheduler", "indexer", "systemd"):
        everything |= _imports(ROOT / folder)
    for module, allowed in owners.items():
        importers = {f for f, m in everything if m == module or m.startswith(module + ".")}
        assert importers <= allowed, (module, importers - allowed)


def test_the_model_spec_and_stamp_load_no_model_runtime() -> None:
    """A dry run and doctor read the model's spec and check its files without onnxruntime."""
    code = "import sys, monodex.indexer.embed.spec, monodex.indexer.embed.stamp; print(','.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not {m for m in out.strip().split(",") if m.split(".")[0] in HEAVY}


def test_cli_start_imports_no_heavy_dependency() -> None:
    code = "import sys, monodex.main; print(','.join(sorted(m for m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.strip().split(","))
    assert not {m for m in loaded if m.split(".")[0] in HEAVY}


# The indexer's rooms (subpackages of indexer/, or the modules at its top) and the rooms each may
# import: dependencies point one way, from the front (ops) down to the store, chunkers and model.
ROOMS: dict[str, set[str]] = {
    "store": set(),  # the Store Protocol and its two Qdrant adapters
    "syntax": set(),  # tree-sitter grammars, parsed trees, what each language's nodes mean
    "chunkers": {"syntax"},  # source text -> chunks
    "embed": set(),  # the model: its spec, its sha256 stamp, the ONNX run
    "models": set(),  # package data only
    "points": {"store", "chunkers"},  # the point schema: ids, payloads, label metadata, filters
    "policy": set(),  # which files are source: the crawl policy and the markers of what is not
    "packages": set(),  # a manifest's package name, and which package a file belongs to
    "git": {"packages", "points", "policy"},  # reading git and planning what a label holds
    # a catalog's history: which files each commit changed, their co-change counts kept current
    # (points: a commit subject's words counted as the lexical vectors hash them)
    "history": {"points"},
    "question": {"points"},  # what a question asks: one name or a sentence, the names it spells
    # the signals, the order of the results (packages: which files are manifests, for a
    # dependency update)
    "translations": set(),  # copies of one text in several languages: translated pages and modules
    "roles": set(),  # what kind of file a path is: source, a test, an example, a benchmark, ...
    "rank": {"question", "points", "store", "packages", "translations", "roles"},
    "read": {"question", "rank", "translations", "points", "store", "chunkers"},  # search, view, token budgets
    "compare": {"points", "store"},  # questions across labels: holders, other versions, diff
    "engine": {"chunkers", "embed"},  # the chunkers and the model as one implementation
    "session": {
        "store",
        "embed",
        "engine",
        "points",
    },  # the heavy parts from config (points: after a model change, which model the previous collection holds)
    # who holds what: base keys written in chunks, a commit label derived from the nearest base
    "members": {"git", "points", "store"},
    # one file's chunks, payloads and lexical vectors, in the crawl's thread or worker processes
    "prepare": {"git", "points", "store", "chunkers"},
    "write": {
        "history",
        "prepare",
        "git",
        "policy",
        "points",
        "store",
        "chunkers",
        "embed",
        "engine",
        "session",
        "members",
    },  # crawls, phase two
    # following branches: is a label fresh, the runner's refresh, a branch indexed on demand
    "follow": {"write", "history", "git", "points", "store", "chunkers", "embed", "engine", "session"},
    # a worktree's uncommitted files over its branch's label: git status, stat cache, phase one
    "overlay": {
        "packages",
        "write",
        "members",
        "git",
        "policy",
        "points",
        "store",
        "chunkers",
        "embed",
        "engine",
        "session",
    },
    "upkeep": {
        "follow",
        "history",
        "write",
        "members",
        "read",
        "git",
        "points",
        "store",
        "chunkers",
        "session",
        "overlay",
    },  # gc, verify, removal
    # measuring search on a label: questions from its history, scores, a BM25 baseline
    "evaluate": {"read", "rank", "history", "git", "points", "store", "session"},
    "ops": {
        "evaluate",
        "history",
        "write",
        "follow",
        "read",
        "compare",
        "upkeep",
        "overlay",
        "points",
        "store",
        "session",
    },  # the front layer's entry
}


def _room(file: str) -> str:
    """indexer/git/plan.py -> git; indexer/session.py -> session."""
    parts = Path(file).relative_to("indexer").parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def test_every_indexer_module_is_in_a_room() -> None:
    rooms = {_room(str(f.relative_to(ROOT))) for f in (ROOT / "indexer").rglob("*.py")}
    assert rooms - {"__init__"} <= ROOMS.keys()


def test_rooms_import_only_rooms_below_them() -> None:
    bad = []
    for file, module in _imports(ROOT / "indexer"):
        if not module.startswith("monodex.indexer."):
            continue
        room, target = _room(file), module.split(".")[2]
        if target != room and target not in ROOMS[room]:
            bad.append((file, module))
    assert bad == []


def _assert_no_cycle(rules: dict[str, set[str]]) -> None:
    seen: set[str] = set()

    def visit(room: str, path: tuple[str, ...]) -> None:
        assert room not in path, path + (room,)
        if room not in seen:
            for below in rules[room]:
                visit(below, path + (room,))
            seen.add(room)

    for room in rules:
        visit(room, ())


def test_room_rules_have_no_cycle() -> None:
    _assert_no_cycle(ROOMS)


def test_each_room_reads_in_one_sitting() -> None:
    """A room is small enough to read in one go; past this, split it by concept."""
    lines: dict[str, int] = {}
    for f in (ROOT / "indexer").rglob("*.py"):
        room = _room(str(f.relative_to(ROOT)))
        lines[room] = lines.get(room, 0) + len(f.read_text().splitlines())
    assert {r: n for r, n in lines.items() if n > 1500} == {}


PACKAGES = {"monodex": "monodex", "hooks": "monodex.hooks", "scheduler": "monodex.scheduler"}
PACKAGES |= {"indexer": "monodex.indexer", "systemd": "monodex.systemd"}


def _module_files() -> dict[str, Path]:
    """{dotted module name: its file}, for every module of the installed package."""
    files: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for f in (ROOT / folder).rglob("*.py"):
            parts = [p for p in f.relative_to(ROOT / folder).with_suffix("").parts if p != "__init__"]
            files[".".join([package, *parts])] = f
    return files


def _module_graph() -> dict[str, set[str]]:
    """{module: the monodex modules it imports}, at its top or inside a function alike (an import
    deferred for speed is a dependency all the same)."""
    files = _module_files()
    graph: dict[str, set[str]] = {}
    for name, f in files.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:  # `from monodex.x import y`: the module y, else x
                    full = f"{node.module}.{a.name}"
                    deps.add(full if full in files else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for w in graph[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    return seen


def test_no_module_imports_itself_back() -> None:
    """No import cycle between modules, deferred imports included (front/render.py and
    render_across.py were one: the freshness line they share is render_freshness.py's)."""
    graph = _module_graph()
    cycles = sorted(m for m in graph if m in _reachable(graph, m))
    assert cycles == []


# What a search reads with, and what writes: a read reaches no write path, however indirectly (a
# label that must be caught up first is follow/ondemand's, through the one refresh path).
READS = ("monodex.indexer.read.", "monodex.indexer.rank.", "monodex.indexer.compare.")
READ_MODULES = {"monodex.indexer.follow.freshness"}
WRITES = ("monodex.indexer.write", "monodex.indexer.members", "monodex.indexer.upkeep")
WRITES += ("monodex.indexer.overlay", "monodex.indexer.ops", "monodex.indexer.follow.refresh")
WRITES += ("monodex.indexer.follow.ondemand", "monodex.scheduler")


def test_reads_do_not_import_write_paths() -> None:
    graph = _module_graph()
    reads = [m for m in graph if m.startswith(READS) or m in READ_MODULES]
    assert len(reads) > 10
    bad = {m: sorted(w for w in _reachable(graph, m) if w.startswith(WRITES)) for m in reads}
    assert {m: w for m, w in bad.items() if w} == {}


def test_only_paths_reads_the_xdg_folders_and_home() -> None:
    """monodex.disk.paths is the one reader of XDG_* and HOME: every location comes from Paths."""
    reads = re.compile(r"Path\.home\(|environ\b[^\n]*[\"'](?:XDG_\w+|HOME)[\"']")
    readers = {
        str(f.relative_to(ROOT))
        for folder in ("monodex", "hooks", "scheduler", "indexer", "systemd")
        for f in (ROOT / folder).rglob("*.py")
        if reads.search(f.read_text())
    }
    assert readers == {"monodex/disk/paths.py"}


# The kernel's rooms (subpackages of monodex/ besides the front and the commands) and the rooms
# each may import; errors.py and names.py, the vocabulary, any of them may. Stdlib (and structlog)
# only, so the hook path and `status` stay light.
KERNEL_BASE = {"errors", "names", "__init__"}
KERNEL: dict[str, set[str]] = {
    "schema": set(),  # what crosses a boundary: answers, payload keys, languages
    "git": set(),  # every question to git
    "disk": {"schema"},  # paths, JSON files, free space, writable folders, no links
    "observe": {"disk", "schema"},  # output, logs, progress, a running crawl's figures
    "labels": {"disk", "git"},  # a branch's label, the labels a catalog indexed, where you stand
    "requests": {"schema"},  # one typed request per operation
    "settings": {"disk", "git", "labels", "requests"},  # config.json, the default context
    "runner": {"disk", "observe", "requests"},  # the runner's spool, socket and pid
}
OUTSIDE_KERNEL = ("commands", "front", "main", "__main__")


def _kernel_room(file: str) -> str:
    """monodex/disk/paths.py -> disk; monodex/errors.py -> errors."""
    parts = Path(file).relative_to("monodex").parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def _kernel_imports() -> set[tuple[str, str]]:
    return {(f, m) for f, m in _imports(ROOT / "monodex") if _kernel_room(f) not in OUTSIDE_KERNEL}


def test_every_kernel_module_is_in_a_room() -> None:
    rooms = {_kernel_room(str(f.relative_to(ROOT))) for f in (ROOT / "monodex").rglob("*.py")}
    assert rooms - set(OUTSIDE_KERNEL) - KERNEL_BASE <= KERNEL.keys()


def test_kernel_rooms_import_only_rooms_below_them() -> None:
    bad = []
    for file, module in _kernel_imports():
        parts = module.split(".")
        if parts[0] != "monodex" or len(parts) < 2 or parts[1] in KERNEL_BASE | {"__version__"}:
            continue
        room, target = _kernel_room(file), parts[1]
        if room in KERNEL_BASE or (target != room and target not in KERNEL[room]):
            bad.append((file, module))
    assert bad == []


def test_kernel_room_rules_have_no_cycle() -> None:
    _assert_no_cycle(KERNEL)


def test_the_kernel_imports_no_component_and_no_sdk() -> None:
    """The kernel (monodex/ but its commands and its front; main.py too) is what every part may
    import: it reaches into none of them."""
    banned = ("monodex.indexer", "monodex.scheduler", "monodex.hooks", "monodex.front", "mcp", "pydantic")
    kernel = {(f, m) for f, m in _imports(ROOT / "monodex") if _kernel_room(f) not in ("commands", "front")}
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


def test_the_runner_reaches_the_indexer_only_through_ops() -> None:
    """The refresh path goes through the same door as the front (indexer/ops/); the Session is
    what it opens the door with."""
    found = _imports(ROOT / "scheduler")
    door = ("monodex.indexer.ops", "monodex.indexer.session")
    reached = {m for _f, m in found if m.startswith("monodex.indexer.")}
    assert {m for m in reached if m not in door and not m.startswith(tuple(f"{d}." for d in door))} == set()


def test_one_reader_answers_where_a_branch_points() -> None:
    """monodex/git/refs.py (git for-each-ref) for everyone; monodex/git/files.py reads ref files
    for the hooks, where starting a process is not allowed for. dulwich's ref reading is not used
    (gitobjects.py reads HEAD only to resolve a revision)."""
    pattern = re.compile(r"\.refs\[|\.branches\(\)|\.branch_commit\(|get_symrefs\(")
    users = {
        str(f.relative_to(ROOT))
        for folder in ("monodex", "hooks", "scheduler", "indexer")
        for f in (ROOT / folder).rglob("*.py")
        if pattern.search(f.read_text())
    }
    assert users <= {"indexer/git/gitobjects.py"}, users


def _files_matching(pattern: re.Pattern[str]) -> set[str]:
    return {
        str(f.relative_to(ROOT))
        for folder in ("monodex", "hooks", "scheduler", "indexer", "systemd")
        for f in (ROOT / folder).rglob("*.py")
        if pattern.search(f.read_text())
    }


def test_one_git_module_asks_git() -> None:
    """Every question to git goes through monodex/git/: only its cli.py starts a process (and only
    it imports subprocess: the others name cli.Failed; besides it, only the two modules that start
    monodex's own Python processes do), only its files.py reads git's files (the hook script
    hooks/install.py writes reads them in shell, before git returns). Git's objects are read
    through dulwich by indexer/git/gitobjects.py (test_heavy_dependencies_...)."""
    assert _files_matching(re.compile(r"^\s*(import subprocess|from subprocess import)", re.M)) == {
        "monodex/git/cli.py",
        "indexer/prepare/pool.py",  # the crawl's worker processes
        "indexer/upkeep/compaction.py",  # the compaction nobody waits for
    }
    assert _files_matching(re.compile(r"""\[\s*["']git["']\s*,""")) == {"monodex/git/cli.py"}
    layout = re.compile(r'/ "HEAD"|"(commondir|packed-refs|head-name|hookspath)"|"gitdir:')
    assert _files_matching(layout) == {"monodex/git/files.py"}


# Names defined in more than one room. A name called through its module (`jsonfile.read`,
# `labelmeta.read`) says which it is; one imported bare (`from m import Budget`) does not, so a
# public class or function imported by name somewhere is defined in one room only, or listed here.
SAME_NAME_ALLOWED = {
    "run": "one protocol: a command's run(args), git/cli's run of git, the door's run(request)",
    "parse": "each module's reader of its own format (config, a spool entry, git status, ...)",
    "read": "each module's reader of its own file (jsonfile, labelmeta, overlaymeta, frames, ...)",
    "build": "each module's one constructor (the MCP server, the eval report, a request from JSON)",
    "collect": "what each gathers: doctor its checks, front/status its facts, upkeep/gc the garbage",
    "installed": "hooks/install and scheduler/service: is each one's own thing installed",
    "label_for_branch": "hooks/policy's is names' with the catalog's claims, for the hook path",
    "scope": "commands/common.scope reads settings/context.scope's inputs from the flags",
    "search": "one operation named alike by the room that does it, the door and the renderer",
    "diff": "one operation named alike by the door (ops/answers) and the renderer",
    "containing": "one operation named alike by compare/across and the renderer",
    # the schema's JSON record of the class named alike: one thing in its two shapes
    "Context": "schema/setup.Context is settings/context.Context as `monodex use` prints it",
    "Overlay": "schema/search.Overlay is read/search.Overlay as a search answers it",
    "PlannedFile": "schema/crawl.PlannedFile is git/plan.PlannedFile as a dry run prints it",
    "Runner": "schema/status.Runner is scheduler/runner.Runner as status prints it",
}


def _public_names() -> dict[str, set[str]]:
    """{public top-level class or function name: the modules defining it}."""
    found: dict[str, set[str]] = {}
    for module, f in _module_files().items():
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not node.name.startswith("_"):
                    found.setdefault(node.name, set()).add(module)
    return found


def _name_room(module: str) -> str:
    """monodex.indexer.read.search -> monodex.indexer.read; monodex.disk.paths -> monodex.disk;
    monodex.hooks.run -> monodex.hooks; monodex.names -> monodex.names."""
    parts = module.split(".")
    if parts[1] == "indexer":
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def test_no_name_means_two_things_across_rooms() -> None:
    files = _module_files()
    bare = set()
    for f in files.values():
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in files:
                bare.update(
                    (node.module, a.name) for a in node.names if f"{node.module}.{a.name}" not in files
                )
    clashes = {
        name
        for name, modules in _public_names().items()
        if len({_name_room(m) for m in modules}) > 1 and any((m, name) in bare for m in modules)
    }
    assert clashes - SAME_NAME_ALLOWED.keys() == set()
    assert SAME_NAME_ALLOWED.keys() - clashes == set(), "a name no longer clashes: drop it from the list"
