"""What the question names (issue 14, 34): a package or project, a symbol it asks for or spells
in a sentence, the words of a file's name. The hit that is what the question names goes up."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

from monodex.indexer.packages.manifests import is_manifest
from monodex.indexer.points import defined
from monodex.indexer.points.defined import squash
from monodex.indexer.points.langs import lang_of
from monodex.indexer.question import query
from monodex.indexer.question.query import Query
from monodex.indexer.rank import filenames
from monodex.indexer.rank.candidates import Candidate, Weights
from monodex.indexer.roles.paths import SOURCE, role_of

# --- package or project named in the query ---------------------------------------------------

_QUERY_WORD = re.compile(r"[@A-Za-z0-9][@A-Za-z0-9_./-]*[A-Za-z0-9]|[A-Za-z0-9]")


def query_words(text: str) -> set[str]:
    """The query's words as written, lowercased, with compounds (`rush-lib`, `@rushstack/heft`)
    whole, trailing punctuation (`heft:`) left out."""
    return {m.group().lower() for m in _QUERY_WORD.finditer(text)}


def package_names(package: str, path: str) -> set[str]:
    """What a query may call a file's package: its name, the name without its scope, and the
    folder of the project (the first folder of the path under which the package sits is not
    known here, so the folder before `src/` or the path's second folder)."""
    names = {package.lower(), package.rsplit("/", 1)[-1].lower()} if package else set()
    parts = path.split("/")
    if "src" in parts[1:]:
        names.add(parts[parts.index("src") - 1].lower())
    return {n for n in names if n}


def apply_package(cands: list[Candidate], text: str, w: Weights) -> None:
    if w.package == 1.0:
        return
    words = query_words(text)
    names: dict[str, set[str]] = {}  # package -> what a query may call it
    for c in cands:
        pkg = str(c.hit.payload.get("package_name") or "")
        names.setdefault(pkg, set()).update(package_names(pkg, c.path))
    # A word that is also part of another package's name is no choice of package: "sparo" in
    # the sparo repository names `sparo` and is half of `sparo-lib`; "rush-lib" names one.
    parts: dict[str, set[str]] = {
        pkg: {p for n in ns for p in re.split(r"[-/@.]", n) if p} for pkg, ns in names.items()
    }
    named: dict[str, set[str]] = {}
    for pkg, ns in names.items():
        said = {n for n in ns & words if not any(n in parts[o] for o in names if o != pkg)}
        if said:
            named[pkg] = said
    for c in cands:
        hit_names = named.get(str(c.hit.payload.get("package_name") or ""))
        if hit_names:
            c.scale("package", w.package, f"the query names its package ({', '.join(sorted(hit_names))})")


# --- identifiers named in the query ----------------------------------------------------------

DECLARATIONS = defined.DECLARATIONS


def identifiers(text: str) -> set[str]:
    """Names in the query that look like code (query.py): camelCase, PascalCase compounds,
    snake_case, `I`-prefixed interfaces, dotted members, or the whole query when it is one name."""
    return set(query.read(text).names)


# How surely a chunk defines a name: its own symbol is the name; a declaration in its text (or
# its symbol's qualifier) names it; only its file is named after it (`bytecode.c` and
# `bytecode.h` both are; the header declares the struct). A declaration at 0.9 of the best
# candidate's score, not 0.8, passes the chunk that says the name most (fmt's `struct formatter {`
# in base.h behind a header specializing it; flask's `g`): hand-written tune 2 better, none worse.
OWN, DECLARED, FILE_NAMED = 1.0, 0.9, 0.5


def definition(payload: dict[str, Any], names: set[str] | frozenset[str]) -> tuple[str, float] | None:
    """(the name of `names` this chunk defines, how surely: OWN, DECLARED or FILE_NAMED), or None.
    Names compare across naming styles (`default_body_limit.rs` is named after DefaultBodyLimit);
    only code defines (a page `Empty.html` or `json.md` documents)."""
    path = str(payload.get("relative_path", ""))
    lang = payload.get("lang") or lang_of(path)
    if lang not in defined.CODE_LANGS:
        return None
    wanted = {squash(n): n for n in names}
    symbol = str(payload.get("symbol_name") or "")
    if symbol and payload.get("chunk_type") in DECLARATIONS:
        parts = [squash(p) for p in defined.symbol_parts(symbol)]
        if parts and parts[-1] in wanted:
            return wanted[parts[-1]], OWN
        hit = next((p for p in parts if p in wanted), None)
        if hit is not None:
            return wanted[hit], DECLARED
    declared = {squash(d) for d in defined.declared(str(payload.get("text") or ""), lang)} & set(wanted)
    if declared:
        return wanted[min(declared)], DECLARED
    # the file name less its extension: `ScopedLogger.test.ts` tests ScopedLogger, not defines it
    stem = squash(defined.file_stem(path))
    return (wanted[stem], FILE_NAMED) if stem in wanted else None


def defines(payload: dict[str, Any], names: set[str] | frozenset[str]) -> str | None:
    """The name of `names` this chunk defines (`definition`), or None."""
    found = definition(payload, names)
    return found[0] if found else None


def sureness(payload: dict[str, Any], name: str) -> float:
    """How surely the chunk defines `name`, as the definition signal weighs it for a one-name
    question (OWN, DECLARED, FILE_NAMED; x 1.5 in a file named after it); 0.0 when it does not."""
    found = definition(payload, {name})
    if found is None:
        return 0.0
    sure = found[1]
    return sure * (1.5 if sure > FILE_NAMED and _named_by_file(payload, name) else 1.0)


def _named_by_file(payload: dict[str, Any], name: str) -> bool:
    return squash(defined.file_stem(str(payload.get("relative_path", "")))) == squash(name)


# A name that more candidate files than this declare is no one place (hashbrown's try_reserve,
# wrapped by map.rs, set.rs and table.rs over raw.rs): a sentence naming it asks about something
# else ("where are the errors from try_reserve produced"), and its definitions are not lifted
# (issue 34: three hand-written tune questions better, none worse; a header and its source are two).
DEFINED_IN = 2


def apply_definition(cands: list[Candidate], q: Query, w: Weights) -> None:
    """The chunk that declares a name the question spells comes before the chunks that use it.
    A question that is one name (`Router`, `super_len`) asks where it is defined: its definition
    gains `symbol` x the best score x how surely it defines it (x 1.5 in a file named after it,
    which puts it first); a sentence naming a name scales the definition by `definition`, unless
    more than DEFINED_IN candidate files declare it."""
    if not q.names:
        return
    top = max((c.score for c in cands), default=0.0)
    found_in = [(c, definition(c.hit.payload, q.names)) for c in cands]
    files: dict[str, set[str]] = defaultdict(set)
    for c, found in found_in:
        if found is not None:
            files[found[0]].add(c.path)
    for c, found in found_in:
        if found is None:
            continue
        name, _ = found
        if q.is_symbol and w.symbol:
            tier = sureness(c.hit.payload, name)
            c.add("definition", w.symbol * tier * top, f"defines {name}, the name the query asks for")
        elif len(files[name]) <= DEFINED_IN:
            c.scale("definition", w.definition, f"defines {name}, which the query names")
    if q.is_symbol:
        _definition_in_place(found_in)


def _definition_in_place(found_in: list[tuple[Candidate, tuple[str, float] | None]]) -> None:
    """One name asked, declared by no source file but by a test's, an example's or a benchmark's
    (zod's `deepEq`, a helper of `packages/bench/`): that declaration is the answer, and it stays
    where its score puts it. Only named after the name (`is_discarded.cpp`, an example) is no
    declaration; a source file that declares it keeps the others after it."""
    declaring = [c for c, found in found_in if found is not None and found[1] >= DECLARED]
    if any((c.role or role_of(c.path, c.hit.payload.get("chunk_kind"))) == SOURCE for c in declaring):
        return
    for c in declaring:
        c.defines_asked = True


# Which of a file's chunks stands for it when the query is one name: the declaration itself
# (`pub struct StreamMap`), then a chunk whose text declares it (Go's `type RouterGroup struct`
# under no symbol), then one named after it in another style (a test `fn keep_alive` for
# `KeepAlive`), then its impl blocks, extensions and members (`impl Default for HashMap`,
# `RouterGroup.Group`). The file keeps its place; the lines it shows are where the name is defined.
_IMPL_LINE = re.compile(
    r"^[ \t]*(?:(?:pub(?:\([^)]*\))?|public|private|internal|fileprivate|open)[ \t]+)?(?:unsafe[ \t]+)?"
    r"(?:impl|extension)\b.*$",
    re.MULTILINE,
)
STANDS = 1e-6  # above the file's best chunk, so that the definition is the chunk listed


def stand_tier(payload: dict[str, Any], name: str) -> int:
    """4: the chunk is the declaration of `name`, spelled as the query spells it; 3: its text
    declares it so (not as an impl or extension); 2: it is named after it in another style;
    1: it defines it otherwise (an impl block, a member); 0: it does not define it."""
    found = definition(payload, {name})
    if found is None or found[1] == FILE_NAMED:
        return 0
    own = found[1] == OWN and payload.get("chunk_type") != "impl"  # its symbol, not an impl block
    if own and defined.symbol_parts(str(payload.get("symbol_name") or ""))[-1:] == [name]:
        return 4
    text = _IMPL_LINE.sub("", str(payload.get("text") or ""))
    lang = payload.get("lang") or lang_of(str(payload.get("relative_path", "")))
    if name in defined.declared(text, lang):
        return 3
    return 2 if own else 1


def apply_stand_in_file(cands: list[Candidate], q: Query) -> None:
    """For a one-name query, each file's chunk that defines the name best (`stand_tier`) is the
    one listed for the file: it takes the file's best score (hand-written symbol questions: 27 of
    218 answer files were listed by an impl block or a member beside the declaration asked for)."""
    if q.symbol is None:
        return
    files: dict[Any, list[Candidate]] = defaultdict(list)
    for c in cands:
        files[c.hit.payload.get("file_id") or c.path].append(c)
    for chunks in files.values():
        if len(chunks) < 2:
            continue
        tiers = [(stand_tier(c.hit.payload, q.symbol), c.score, c) for c in chunks]
        tier, _, best = max(tiers, key=lambda t: (t[0], t[1]))
        top = max(c.score for c in chunks if c is not best)
        if tier and best.score <= top:
            best.add("definition", top + STANDS - best.score, f"defines {q.symbol}: it stands for its file")


# --- the file's name --------------------------------------------------------------------------


def apply_filename(cands: list[Candidate], q: Query, w: Weights) -> None:
    """A file whose name the question says (`pre-publish.ts` for "... pre-publish", `fetch.ts`
    for "sparo fetch ...") gains `name_coverage` x the best score x the share of its name's words
    the question says, each word counted as 1 / the candidate files whose names have it (a
    feature's name, `subspace`, names a dozen files and says little of each), from `name_min`
    of its words on: once per file, whatever else matches (filenames.py)."""
    if q.is_symbol or not q.words or not w.name_coverage:
        return
    said = {c.path: filenames.name_coverage(q.words, c.path) for c in cands}
    named: Counter[str] = Counter(word for share, words in said.values() for word in words)
    top = max((c.score for c in cands), default=0.0)
    for c in cands:
        share, words = said[c.path]
        if share < w.name_min:
            continue
        own = len(words) / share
        weight = sum(1 / named[word] for word in words) / own if w.name_rare else share
        if weight > 0:
            why = f"the query says {share:.0%} of its name ({', '.join(sorted(words))})"
            c.add("filename", w.name_coverage * weight * top, why)


def apply_path(cands: list[Candidate], q: Query, w: Weights) -> None:
    """A query that is a path names its files: each file at it gains `path` x the best score and
    ranks as source, a test or a page too ("trie-router/router.ts" listed the router's `node.ts`
    first, which says "router" more), the chunk holding the line it names (`router.ts:42`) twice;
    else each file under the folder it names gains as much."""
    if q.path is None or not w.path:
        return
    at, top = q.path.rstrip("/"), max((c.score for c in cands), default=0.0)
    files = [c for c in cands if c.path == at or c.path.endswith("/" + at)]
    for c in files or [c for c in cands if f"/{at}/" in f"/{c.path}"]:
        c.add("path", w.path * top, "the query is its path" if files else "the query is its folder")
        c.role = "source" if files else c.role
        lines = (c.hit.payload.get("start_line", 0), c.hit.payload.get("end_line", -1))
        if q.line is not None and lines[0] <= q.line <= lines[1]:
            c.add("path", w.path * top, f"and its line {q.line}")  # the chunk the file is listed with


# --- a dependency the question updates -------------------------------------------------------


def declares(text: str, name: str) -> bool:
    """Whether a manifest's chunk declares `name` as a key (package.json `"ctor": "^1"`,
    Cargo.toml `ctor = "1"` / `ctor.workspace = true` / `[dependencies.ctor]`, pom.xml
    `<artifactId>ctor<`, go.mod `ctor v1.2`): a script that runs it does not count."""
    n = re.escape(name)
    return bool(
        re.search(
            rf"[\"']{n}[\"']\s*:|^\s*[\"']?{n}[\"']?\s*[=.]|\.{n}\]|\[{n}\]|>{n}<|(?<![\w@/.-]){n}\s+v?\d",
            text,
            re.MULTILINE,
        )
    )


def manifest_declares(payload: dict[str, Any], name: str) -> bool:
    """Whether the chunk is a package manifest's and declares `name` (`declares`)."""
    path = str(payload.get("relative_path", ""))
    return is_manifest(path) and declares(str(payload.get("text") or ""), name)


def apply_dependency(cands: list[Candidate], q: Query, w: Weights) -> None:
    """A dependency update ("update rust crate ctor to v1", "bump rollup from 4.21 to 4.22") is
    answered by the manifests that declare it: each of their chunks declaring it gains
    `dependency` x the best score (the manifests are fetched when neither list ranked them:
    read/joined.py)."""
    if not q.dependencies or not w.dependency:
        return
    top = max((c.score for c in cands), default=0.0)
    for c in cands:
        name = next((n for n in sorted(q.dependencies) if manifest_declares(c.hit.payload, n)), None)
        if name is not None:
            c.add("dependency", w.dependency * top, f"declares {name}, the dependency the query updates")
