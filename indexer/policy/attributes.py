"""The markers a repository sets on its own files in `.gitattributes` (gitattributes(5)), read
from the crawled commit's objects (or the work tree's files for a working-dir crawl).

Only the attributes that say a file is not source are looked at: `linguist-generated` and
`linguist-vendored` (GitHub linguist's markers; `-attr` or `attr=false` clears them, and then
also clears the built-in rules of that kind: a `vendor/` the repository calls its own is
indexed), `binary` and `-diff` (git shows no diff of the file).

Pattern semantics are git's: a pattern without `/` matches a file name at any depth below the
`.gitattributes` holding it, one with `/` is relative to that folder; `*` and `?` stay within a
folder, `**/`, `/**/` and a trailing `/**` cross folders; a pattern ending in `/` matches no
file; deeper files override shallower ones and later lines earlier ones; `[attr]` macros are
read from the top-level file only, and `binary` is `-diff -merge -text`.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

FILE = ".gitattributes"
GENERATED, VENDORED = "linguist-generated", "linguist-vendored"
_WATCHED = (GENERATED, VENDORED, "binary", "diff")
_BUILTIN_MACROS = {"binary": ("-diff", "-merge", "-text")}
State = bool | str | None  # set, unset, a value, or unspecified (`!attr`)


@dataclass(frozen=True)
class Marks:
    """What the attributes say of one path: a skip reason, and the kinds of built-in rule the
    repository waived for it (`generated`, `vendored`)."""

    reason: str | None = None
    waived: frozenset[str] = frozenset()


NONE = Marks()


@dataclass(frozen=True)
class _Rule:
    regex: re.Pattern[str]
    states: tuple[tuple[str, State], ...]  # watched attributes only, macros expanded


def _state(token: str) -> tuple[str, State]:
    if token[:1] in "-!":
        return token[1:], (False if token[0] == "-" else None)
    name, eq, value = token.partition("=")
    return name, (value if eq else True)


def _expand(tokens: list[str], macros: dict[str, tuple[str, ...]], depth: int = 0) -> list[tuple[str, State]]:
    out: list[tuple[str, State]] = []
    for token in tokens:
        name, state = _state(token)
        out.append((name, state))
        if state is True and name in macros and depth < 8:
            out.extend(_expand(list(macros[name]), macros, depth + 1))
    return out


def _unquote(line: str) -> tuple[str, str]:
    """(pattern, the rest) of a line; a pattern may be C-quoted (`"a b.txt" -diff`)."""
    if not line.startswith('"'):
        pattern, _, rest = re.sub(r"\s", " ", line, count=1).partition(" ")
        return pattern, rest
    end = 1
    while end < len(line) and line[end] != '"':
        end += 2 if line[end] == "\\" else 1
    raw = line[1:end]
    return re.sub(r"\\(.)", r"\1", raw), line[end + 1 :]


def parse(text: str, *, top: bool, macros: dict[str, tuple[str, ...]]) -> list[_Rule]:
    """The rules of one `.gitattributes` that touch a watched attribute; a top-level file's
    `[attr]` lines are added to `macros`."""
    rules = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, rest = _unquote(line)
        tokens = rest.split()
        if pattern.startswith("[attr]"):
            if top:
                macros[pattern[6:]] = tuple(tokens)
            continue
        if pattern.startswith("!") or pattern.endswith("/"):
            continue  # git refuses negative patterns; a folder pattern matches no file
        states = tuple((n, s) for n, s in _expand(tokens, macros) if n in _WATCHED)
        if states:
            rules.append(_Rule(_compile(pattern), states))
    return rules


@lru_cache(maxsize=1024)
def _compile(pattern: str) -> re.Pattern[str]:
    """A regex over the path relative to the folder of the `.gitattributes` (wildmatch with
    WM_PATHNAME, as git matches attributes)."""
    anchored = "/" in pattern
    pattern = pattern.removeprefix("/")
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            j = i
            while j < n and pattern[j] == "*":
                j += 1
            whole = (i == 0 or pattern[i - 1] == "/") and (j == n or pattern[j] == "/")
            if j - i >= 2 and whole:
                out.append(".*" if j == n else "(?:.*/)?")
                j += j < n  # `**/` takes its slash with it
            else:
                out.append("[^/]*")
            i = j
            continue
        if ch == "?":
            out.append("[^/]")
        elif ch == "[" and (end := pattern.find("]", i + 2)) > 0:
            body = pattern[i + 1 : end]
            negate = body[:1] in ("!", "^")
            members = "".join(c if c == "-" else re.escape(c) for c in body[negate:])
            out.append(f"[^/{members}]" if negate else f"[{members}]")
            i = end
        elif ch == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(ch))
        i += 1
    prefix = "" if anchored else "(?:.*/)?"  # no slash: the file name, at any depth
    return re.compile(prefix + "".join(out), re.DOTALL)


@dataclass(frozen=True)
class _Folder:
    rules: list[_Rule]
    any: re.Pattern[str] | None  # one match says whether any rule may apply (most paths: none)


@dataclass
class Attributes:
    """The `.gitattributes` files of one tree, loaded folder by folder on demand: `load(folder)`
    gives the bytes of `<folder>/.gitattributes` ("" is the top) or None."""

    load: Callable[[str], bytes | None]
    _folders: dict[str, _Folder] = field(default_factory=dict)
    _macros: dict[str, tuple[str, ...]] = field(default_factory=lambda: dict(_BUILTIN_MACROS))
    _marks: dict[str, Marks] = field(default_factory=dict)

    @classmethod
    def of(cls, files: dict[str, bytes]) -> Attributes:
        """From `.gitattributes` contents by path (`a/b/.gitattributes`)."""
        by_folder = {posixpath.dirname(p): content for p, content in files.items()}
        return cls(by_folder.get)

    def _at(self, folder: str) -> _Folder:
        found = self._folders.get(folder)
        if found is None:
            if folder:
                self._at("")  # the top-level file's macros first
            content = self.load(folder)
            text = content.decode("utf-8", "replace") if content else ""
            rules = parse(text, top=not folder, macros=self._macros)
            joined = "|".join(f"(?:{r.regex.pattern})" for r in rules)
            found = self._folders[folder] = _Folder(rules, re.compile(joined, re.DOTALL) if rules else None)
        return found

    def states(self, path: str) -> dict[str, State]:
        """The watched attributes of a file, as git resolves them."""
        found: dict[str, State] = {}
        at = 0
        while at != -1:
            folder = self._at(path[: max(at - 1, 0)])
            rel = path[at:]
            if folder.any is not None and folder.any.fullmatch(rel):
                for rule in folder.rules:
                    if rule.regex.fullmatch(rel):
                        found.update(rule.states)
            at = path.find("/", at) + 1 or -1
        return found

    def marks(self, path: str) -> Marks:
        """The skip reason and waivers of a file (remembered: a plan asks more than once)."""
        known = self._marks.get(path)
        if known is None:
            known = self._marks[path] = _marks(self.states(path))
        return known


def _marks(s: dict[str, State]) -> Marks:
    generated, vendored = _flag(s.get(GENERATED)), _flag(s.get(VENDORED))
    waived = frozenset(k for k, v in (("generated", generated), ("vendored", vendored)) if v is False)
    if generated:
        return Marks(f"generated: {FILE} {GENERATED}", waived)
    if vendored:
        return Marks(f"vendored: {FILE} {VENDORED}", waived)
    if s.get("binary") is True:
        return Marks(f"binary: {FILE} binary", waived)
    if s.get("diff") is False:
        return Marks(f"binary: {FILE} -diff", waived)
    return Marks(None, waived) if waived else NONE


def _flag(state: State) -> bool | None:
    """linguist's reading: set or `true` marks, unset or `false` clears, anything else says nothing."""
    if state is True or state == "true":
        return True
    if state is False or state == "false":
        return False
    return None
