"""Bare-symbol sets built from the code itself: a name defined in exactly one source file of a
repository is the question, that file the answer. "A bare identifier should put the file that
defines it first, in every language" (issue 34): the hand-written sets ask about a library's
best-known names; these ask about any of its functions, methods, classes and types, sampled
without reading them, so a language whose definitions the ranking cannot see shows at once.
Deterministic: run it again and the same sets come out.

Usage: python bench/eval/build_symbols.py [OWNER+NAME ...]
  Each repository of the hand-written sets (or those named), at its set's commit, from
  $MONODEX_BENCH_MIRRORS/<owner+name>/repo; writes bench/eval/symbols/<owner+name>.json.

What counts: the declarations tree-sitter reads with a body (functions, methods, classes, structs,
interfaces, traits, enums, type aliases; in C and C++ function definitions and tagged types with a
body) in the files a crawl of the commit indexes (the built-in policy: the planner's own tests,
plan.entry_problem and plan.text_problem) that are source: not a test, example, benchmark, fuzz
target, documentation page, script, tool, bundled copy or amalgamated header (by the folders
below, kept here: a ranking change must not change the set). A name is asked when one of those
files defines it (a name two source files define has no one answer), is six characters or more,
does not start with `_` and is not all capitals (a macro). 30 names a repository, picked by a
hash of the name.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _common import mirrors  # noqa: E402
from dulwich.repo import Repo  # noqa: E402
from monodex.indexer.git import plan  # noqa: E402
from monodex.indexer.git.gitobjects import GitRepo  # noqa: E402
from monodex.indexer.policy import crawlpolicy  # noqa: E402
from monodex.indexer.syntax import grammars  # noqa: E402

PER_REPO = 30
MIN_NAME = 6
NOT_SOURCE = re.compile(
    r"(^|/)(tests?|testing|testdata|__tests__|spec|specs|examples?|samples?|demos?|benches|benchmarks?"
    r"|bench|fuzz|docs?|documentation|website|site|scripts?|tools?|tooling|third_party|thirdparty"
    r"|vendor|bundled|external|deps|single_include)/"
    r"|(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*Tests?\.\w+|[^/]*\.(test|spec)\.\w+|conftest\.py|[^/]*testutil[^/]*)$",
    re.I,
)
GRAMMAR = {
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".py": "python", ".rs": "rust", ".go": "go", ".java": "java", ".kt": "kotlin", ".swift": "swift",
    ".c": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp",
    ".h": "c",  # C++ in a repository with C++ sources (below)
}  # fmt: skip
DEFINING = frozenset(
    {
        *("function_declaration", "generator_function_declaration", "class_declaration"),
        *("interface_declaration", "type_alias_declaration", "enum_declaration", "method_definition"),
        *("function_definition", "class_definition", "function_item", "struct_item", "enum_item"),
        *("trait_item", "type_item", "method_declaration", "type_spec", "record_declaration"),
        *("object_declaration", "protocol_declaration", "struct_specifier", "class_specifier"),
        "enum_specifier",
    }
)
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def _declarator(node: Any) -> Any:
    """A C or C++ function's name, through its declarator chain (`int *f(void)`, `Foo::bar()`)."""
    d = node.child_by_field_name("declarator")
    while d is not None and d.type not in ("identifier", "field_identifier", "qualified_identifier"):
        if d.type in ("destructor_name", "operator_name"):
            return None
        d = d.child_by_field_name("declarator") or next(
            (c for c in d.named_children if "identifier" in c.type), None
        )
    if d is not None and d.type == "qualified_identifier":
        return d.child_by_field_name("name")
    return d


def _name(node: Any, grammar: str) -> str | None:
    if node.type in ("struct_specifier", "class_specifier", "enum_specifier"):
        if node.child_by_field_name("body") is None:
            return None  # a use of the type, not its definition
    if node.type == "method_declaration" and node.child_by_field_name("body") is None and grammar == "java":
        return None  # an abstract or interface method: a declaration
    if node.type == "class_declaration" and grammar == "swift" and node.children[0].type == "extension":
        return None
    n = node.child_by_field_name("name")
    if n is None and node.type == "function_definition" and grammar in ("c", "cpp"):
        n = _declarator(node)
    if n is None:
        n = next((c for c in node.named_children if c.type in ("simple_identifier", "type_identifier")), None)
    if n is None or n.text is None:
        return None
    text = n.text.decode("utf-8", "replace")
    return text if NAME.fullmatch(text) else None


def definitions(data: bytes, grammar: str) -> set[str]:
    root = grammars.parse(data, grammar)
    found: set[str] = set()
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in DEFINING and (name := _name(node, grammar)):
            found.add(name)
    return found


def indexed(mirror: str, commit: str) -> dict[str, bytes]:
    """path -> content of the code files a crawl of `commit` with the built-in policy indexes: the
    crawl's own plan (.gitattributes markers: jq's generated parser.c) and content rules (a
    bundle: axios' dist/)."""
    policy = crawlpolicy.parse(crawlpolicy.BUILTIN, "built-in")
    planned = plan.plan_commit(GitRepo(Repo(mirror)), commit, policy, "symbols")  # a bare mirror too
    code = [f for f in planned.files if Path(f.relative_path).suffix in GRAMMAR]
    return {
        f.relative_path: content
        for f, content in planned.reader(code)
        if content is not None and plan.text_problem(content, f.relative_path, f.strategy) is None
    }


def build(repo: str, commit: str) -> list[dict[str, Any]]:
    mirror = str(mirrors() / repo / "repo")
    files = indexed(mirror, commit)
    cpp = any(Path(p).suffix in (".cc", ".cpp", ".cxx", ".hpp", ".hh") for p in files)
    where: dict[str, set[str]] = defaultdict(set)
    for path, content in files.items():
        if NOT_SOURCE.search(path):
            continue
        grammar = GRAMMAR[Path(path).suffix]
        for name in definitions(content, "cpp" if grammar == "c" and cpp and path.endswith(".h") else grammar):
            where[name].add(path)
    asked = sorted(
        (hashlib.sha256(f"{repo}:{name}".encode()).hexdigest(), name, next(iter(paths)))
        for name, paths in where.items()
        if len(paths) == 1
        and len(name) >= MIN_NAME
        and not name.startswith("_")
        and not name.isupper()  # a macro tree-sitter took for a function (`EXCLUSIVE_LOCKS_REQUIRED(mu)`)
    )[:PER_REPO]
    short = repo.split("+", 1)[1].lower()
    return [
        {"id": f"{short}-sym{i:02d}", "query": name, "relevant": [path], "kind": "symbol"}
        for i, (_, name, path) in enumerate(sorted(asked, key=lambda a: a[1].lower()), start=1)
    ]


# The hand-written sets whose commits the symbol sets share (each repository's first found).
SETS = ("hand", "hand3", "hand4", "hand5", "hand6")


def main() -> None:
    commits: dict[str, str] = {}
    for folder in SETS:
        for f in sorted((HERE / folder).glob("*.json")):
            commits.setdefault(f.stem, json.loads(f.read_text())["commit"])
    out_dir = HERE / "symbols"
    out_dir.mkdir(exist_ok=True)
    for repo in sys.argv[1:] or sorted(commits):
        commit = commits[repo]
        queries = build(repo, commit)
        doc = {"repo": repo, "commit": commit, "built_by": "bench/eval/build_symbols.py", "queries": queries}
        (out_dir / f"{repo}.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(f"{repo}: {len(queries)} names", file=sys.stderr)


if __name__ == "__main__":
    main()
