"""Doc-comment sanity sets: the first sentence of a declaration's doc comment is the question,
the file that declares it is the answer. A search that cannot find a file from the sentence
written right above one of its declarations has regressed, whatever the PR-title figures say
(issue 14: recall@10 >= 0.98 on these). Deterministic: run it again and the same set comes out.

Usage: python bench/eval/build_doc.py MIRROR TARGET PREFIX COUNT OUT.json
  MIRROR  a git directory (e.g. $MONODEX_BENCH_MIRRORS/microsoft+rushstack/repo)
  TARGET  a target of bench/quality.py: its commit and crawl part are used, so the files are
          exactly the ones its index holds (the planner's own test, plan.entry_problem)
  PREFIX  only files under this folder count (e.g. libraries/)
  COUNT   how many to sample, by a hash of the query id (all there are, if fewer)

The sets in bench/eval/ were made with (MIRRORS is $MONODEX_BENCH_MIRRORS):
  build_doc.py $MIRRORS/tiktok+sparo/repo sparo "" 100 sparo-doc.json
  build_doc.py $MIRRORS/microsoft+rushstack/repo rushstack libraries/ 200 rushstack-doc.json
  build_doc.py $MIRRORS/pnpm+pnpm/repo pnpm pnpm11/ 200 pnpm-doc.json

What counts: a `/** ... */` comment directly above an exported function, class, interface or
const (top level or in an exported namespace), or above a non-private method of an exported
class or interface, in a TypeScript file that is not a test. Its first sentence (before any
block tag or blank line) must be a real sentence of at least five words: not a tag, TODO,
copyright or lint directive, nor `{@inheritDoc}`. Markup is reduced to what a person would
type: `{@link X | text}` -> text, `{@link pkg#X}` -> X, backticks and Markdown links dropped.
A sentence written above declarations in several files has all of them as answers; one found
in more than three files (boilerplate) is left out. Each sentence is one query (compared
without case), named by its first file and declaration: `doc:<path>#<Class.member>`.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import tree_sitter_typescript
from tree_sitter import Language, Node, Parser

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # build_prs.py, and bench/ for quality.py's TARGETS

from monodex.indexer.git import plan  # noqa: E402
from monodex.indexer.git.gitobjects import TreeEntry  # noqa: E402
from monodex.indexer.policy import crawlpolicy  # noqa: E402
from monodex.indexer.policy.crawlpolicy import CrawlPolicy  # noqa: E402

# Tests and test projects (as monodex's ranking sees them, plus declaration files): not what the
# sanity sets ask for. Kept here, not imported: a ranking change must not change the set.
TESTS = re.compile(
    r"(^|/)(__tests__|__mocks__|__fixtures__|tests?|test-data|test-utils|testing|fixtures?"
    r"|build-tests(-samples)?)/|\.(test|spec)\.tsx?$|\.d\.ts$"
)
MAX_FILES = 3  # a sentence above declarations in more files than this is boilerplate, no question
MIN_WORDS = 5
# First sentences that are no description of what the declaration does.
NOT_PROSE = re.compile(
    r"^(@|todo\b|fixme\b|hack\b|xxx\b|copyright\b|\(c\)|licensed\b|license\b|eslint|tslint|prettier"
    r"|istanbul\b|jshint|@ts-|webpack|```|<)",
    re.I,
)
NOT_PROSE_ANYWHERE = re.compile(r"\bcopyright\b|\blicensed under\b|\bspdx-license|\{@inheritdoc", re.I)
WORD = re.compile(r"[A-Za-z][A-Za-z0-9'_-]*")
BLOCK_TAG = re.compile(r"^@\w+")
INLINE_LINK = re.compile(r"\{@(?:link|linkcode|linkplain)\s+([^}|]*?)\s*(?:\|\s*([^}]*?)\s*)?\}")
INLINE_OTHER = re.compile(r"\{@\w+\s*([^}]*)\}")
MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
ABBREV = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|incl|ca|viz|resp)\.", re.I)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
DOT = "\x00"  # stands for the dot of an abbreviation while sentences are split


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "-C", mirror, *args], capture_output=True, text=True, check=True).stdout


# --- the first sentence of a doc comment -----------------------------------------------------


def _link(m: re.Match[str]) -> str:
    target, label = m.group(1), m.group(2)
    if label:
        return label
    return target.rsplit("#", 1)[-1]  # "@rushstack/node-core-library#FileSystem" -> "FileSystem"


def plain(text: str) -> str:
    """TSDoc / Markdown markup reduced to the words a person would type."""
    text = INLINE_LINK.sub(_link, text)
    text = INLINE_OTHER.sub(lambda m: m.group(1), text)
    text = MD_LINK.sub(lambda m: m.group(1), text)
    text = HTML_TAG.sub("", text)
    text = text.replace("`", "").replace("**", "")
    return " ".join(text.split())


def first_sentence(comment: str) -> str | None:
    """The first sentence of a `/** ... */` comment's description, or None when it has none a
    question could be made of (see the module docstring)."""
    if not comment.startswith("/**") or comment.startswith("/***") or not comment.endswith("*/"):
        return None  # a plain block comment or a banner is no doc comment
    body = comment[3:-2]
    lines = [re.sub(r"^\s*\*?\s?", "", ln).rstrip() for ln in body.splitlines()]
    paragraph: list[str] = []
    for ln in lines:
        if BLOCK_TAG.match(ln.strip()):
            if not paragraph:
                return None  # the comment starts with @param, @deprecated, ...: no description
            break
        if not ln.strip():
            if paragraph:
                break
            continue
        paragraph.append(ln.strip())
    raw = " ".join(paragraph)
    if not raw or NOT_PROSE.match(raw) or NOT_PROSE_ANYWHERE.search(raw):
        return None
    text = plain(ABBREV.sub(lambda m: m.group(1).replace(".", DOT) + DOT, raw))
    sentence = SENTENCE_END.split(text, maxsplit=1)[0].replace(DOT, ".").strip()
    if len(WORD.findall(sentence)) < MIN_WORDS or NOT_PROSE.match(sentence):
        return None
    return sentence


# --- declarations and the doc comment above each ------------------------------------------------

TOP = {
    "function_declaration": "function",
    "function_signature": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "lexical_declaration": "const",
}
MEMBERS = {"method_definition", "method_signature", "abstract_method_signature"}


def _doc_above(node: Node) -> str | None:
    """The comment that ends on the line above `node` (or on its line), if any."""
    prev = node.prev_sibling
    if prev is None or prev.type != "comment" or node.start_point[0] - prev.end_point[0] > 1:
        return None
    return (prev.text or b"").decode("utf-8", "replace")


def _name(node: Node) -> str | None:
    if node.type == "lexical_declaration":
        first = next((c for c in node.named_children if c.type == "variable_declarator"), None)
        node = first if first is not None else node
    found = node.child_by_field_name("name")
    return (found.text or b"").decode("utf-8", "replace") if found is not None else None


def _private(member: Node) -> bool:
    modifiers = [c for c in member.children if c.type == "accessibility_modifier"]
    name = _name(member) or ""
    return any((m.text or b"") == b"private" for m in modifiers) or name.startswith("#")


def _exported(scope: Node, prefix: str) -> Iterator[tuple[str, str, str]]:
    """(qualified name, kind, doc comment) for the exported declarations among scope's children."""
    for stmt in scope.named_children:
        if stmt.type != "export_statement":
            continue
        decl = stmt.child_by_field_name("declaration")
        if decl is None:
            continue
        if decl.type == "internal_module":  # export namespace N { export function f ... }
            body = decl.child_by_field_name("body")
            if body is not None:
                yield from _exported(body, f"{prefix}{_name(decl)}.")
            continue
        kind, name = TOP.get(decl.type), _name(decl)
        if kind is None or name is None:
            continue
        doc = _doc_above(stmt) or _doc_above(decl)  # the latter: after a decorator
        if doc:
            yield f"{prefix}{name}", kind, doc
        body = decl.child_by_field_name("body")
        if kind in ("class", "interface") and body is not None:
            for member in body.named_children:
                if member.type in MEMBERS and not _private(member):
                    member_doc, member_name = _doc_above(member), _name(member)
                    if member_doc and member_name:
                        yield f"{prefix}{name}.{member_name}", "method", member_doc


def _parser(path: str) -> Parser:
    tsx = path.endswith(".tsx")
    grammar = tree_sitter_typescript.language_tsx() if tsx else tree_sitter_typescript.language_typescript()
    return Parser(Language(grammar))


def declarations(text: str, path: str) -> list[tuple[str, str, str]]:
    """(qualified name, kind, first sentence) of the documented exported declarations of a file."""
    tree = _parser(path).parse(text.encode("utf-8", "surrogatepass"))
    out = []
    for name, kind, doc in _exported(tree.root_node, ""):
        sentence = first_sentence(doc)
        if sentence:
            out.append((name, kind, sentence))
    return out


# --- which files: exactly the indexed ones --------------------------------------------------------


def policy_for(mirror: str, commit: str, part: dict[str, Any] | None) -> CrawlPolicy:
    """The policy a crawl of `commit` uses: the repository's own monodex-crawl.json wins (as in
    crawlpolicy.load), else the part bench/quality.py writes as the user's file, else the built-in."""
    listed = git(mirror, "ls-tree", "--name-only", commit, crawlpolicy.REPO_FILE).strip()
    if listed:
        own = json.loads(git(mirror, "show", f"{commit}:{crawlpolicy.REPO_FILE}"))
        return crawlpolicy.parse(own, crawlpolicy.REPO_FILE)
    if part is not None:
        return crawlpolicy.parse(part, "bench/quality.py")
    return crawlpolicy.parse(crawlpolicy.BUILTIN, "built-in")


def indexed_sources(mirror: str, commit: str, policy: CrawlPolicy, prefix: str) -> Iterator[tuple[str, str]]:
    """(path, text) of the TypeScript non-test files under prefix that a crawl of commit indexes."""
    listing = git(mirror, "ls-tree", "-r", "-l", "-z", commit, *([prefix] if prefix else []))
    wanted: dict[str, list[str]] = {}
    for record in filter(None, listing.split("\x00")):
        meta, path = record.split("\t", 1)
        mode, _, blob, size = meta.split()
        entry = TreeEntry(path, blob, int(mode, 8), None if size == "-" else int(size))
        if plan.entry_problem(entry, policy) or policy.strategy_for(path) != "typescript":
            continue
        if not TESTS.search(path):
            wanted.setdefault(blob, []).append(path)
    batch = subprocess.run(
        ["git", "-C", mirror, "cat-file", "--batch"],
        input="".join(f"{b}\n" for b in wanted).encode(),
        capture_output=True,
        check=True,
    ).stdout
    at = 0
    for blob in wanted:  # cat-file answers in the order asked
        header_end = batch.index(b"\n", at)
        size = int(batch[at:header_end].split()[2])
        content = batch[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
        if plan.text_problem(content) is None:
            for path in wanted[blob]:
                yield path, content.decode("utf-8")


# --- the set ----------------------------------------------------------------------------------------


def rank(query_id: str) -> bytes:
    return hashlib.sha256(query_id.encode()).digest()


def build(mirror: str, commit: str, policy: CrawlPolicy, prefix: str, count: int) -> list[dict[str, Any]]:
    """The sampled queries, sorted by id."""
    by_sentence: dict[str, list[tuple[str, str, str, str]]] = {}
    for path, text in sorted(indexed_sources(mirror, commit, policy, prefix)):
        for name, kind, sentence in declarations(text, path):
            by_sentence.setdefault(sentence.lower(), []).append((path, name, kind, sentence))
    candidates = []
    for found in by_sentence.values():
        files = sorted({path for path, *_ in found})
        if len(files) > MAX_FILES:
            continue
        path, name, kind, sentence = min(found)
        candidates.append(
            {
                "id": f"doc:{path}#{name}",
                "query": sentence,
                "relevant": files,
                "declaration": f"{kind} {name}",
            }
        )
    candidates.sort(key=lambda q: rank(q["id"]))
    return sorted(candidates[:count], key=lambda q: q["id"])


def main() -> None:
    from build_prs import repo_name
    from quality import TARGETS

    mirror, target, prefix, count, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    if target not in TARGETS:
        raise SystemExit(f"unknown target {target!r}: choose from {', '.join(TARGETS)}")
    _, commit, part = TARGETS[target]
    policy = policy_for(mirror, commit, part)
    queries = build(mirror, commit, policy, prefix, count)
    doc = {
        "repo": repo_name(mirror),
        "commit": git(mirror, "rev-parse", commit).strip(),
        "kind": "doc-sanity",
        "source": "first sentence of a doc comment above an exported declaration -> its file, "
        f"non-test .ts/.tsx files under {prefix or '/'} as crawled by bench/quality.py {target}",
        "queries": queries,
    }
    Path(out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(queries)} queries -> {out}")


if __name__ == "__main__":
    main()
