"""The names a chunk defines (issue 34): stored with it (`defines`, a keyword index) so a question
that is one name finds the declaration however many files use the name, and read back by the
ranking for chunks stored before the field.

Names are compared across naming styles (`squash`): `DefaultBodyLimit`, `default_body_limit`
and `default-body-limit` are one name, so `default_body_limit.rs` is named after the struct.
"""

from __future__ import annotations

import functools
import re

DEFINES = "defines"  # the payload field
# Source languages: a page (`Empty.html`, `json.md`) or a config file documents names, it does not
# define them.
CODE_LANGS = frozenset("typescript javascript python rust go java kotlin swift c cpp csharp shell".split())
# chunk_type of a declaration: TypeScript's, and the syntax chunkers' of Rust, Go, Python,
# Java, Kotlin, Swift, C/C++, C# (`struct`, `impl`, `trait`, `macro`, `module`, `namespace`).
DECLARATIONS = frozenset(
    {"class", "interface", "function", "enum", "type", "variable", "method", "field"}
    | {"struct", "impl", "trait", "const", "macro", "module", "namespace"}
)
# A declaration keyword of any of those languages before a name, for chunks cut by lines (no
# symbol) and for a chunk holding several declarations: `def parse_config`, `fn parse_config`,
# `func (s *Server) Serve`, `impl Display for Foo`, `class basic_json`, `#define MAX_WBITS`; with
# Kotlin's type parameters and receivers (`fun <T> Expression<T>.second()`: 14 % of Exposed's and
# moshi's functions were missed without them).
_DECLARED = re.compile(
    r"(?:^|[\s;{}(])(?:def|fn|func(?:\s*\([^)]*\))?|fun|class|struct|union|enum(?:\s+(?:class|struct))?|trait|interface|"
    r"protocol|object|type|typealias|typedef\s+(?:struct|enum|union)?\s*\w*|impl(?:<[^>]*>)?"
    r"(?:\s+[\w:<>]+\s+for)?|mod|module|namespace|macro_rules!|#\s*define|"
    # Kotlin's generic and extension functions: `fun <T : Any> Expression<T>.second()`
    r"function\*?|record|extension|actor)\s+(?:<[^(){}=\n]*>\s*)?"
    r"(?:[A-Za-z_$][\w$]*(?:<[^(){};=\n]*?>)?\??(?:\.|::))*([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
# A variable or constant is a definition at the top of a file only (`export const FOO`,
# `pub static BAR`, `var H = ...`); inside a function it is a local the question does not mean.
_TOP_LEVEL = re.compile(
    r"^(?:export\s+(?:default\s+)?|pub(?:\([^)]*\))?\s+)?(?:const|let|var|static|val)\s+(?:mut\s+)?"
    # ... and not C's next keyword: `static struct bytecode *optimize(...)`, `static const char`
    r"(?!(?:struct|union|enum|const|inline|unsigned|signed|volatile|void|char|int|long|short)\b)"
    # ... not an import under another name: `var compileTrust = require('./utils').compileTrust;`
    r"([A-Za-z_$][\w$]*)\b(?!\s*=\s*(?:require\(|[A-Za-z_$][\w$]*(?:\.[\w$]+)*\s*;))",
    re.MULTILINE,
)
MAX_NAMES = 24  # a chunk of many one-line declarations (an enum of constants) keeps the first ones


def squash(name: str) -> str:
    """A name compared across naming styles: lowercased, letters and digits only."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


# JavaScript's assignments of a function or value to a member, at a line's start: CommonJS
# exports and express's `app.render = function render(...)`.
_ASSIGNED = re.compile(r"^(?:module\.)?(?:[A-Za-z_$][\w$]*\.)+([A-Za-z_$][\w$]*)\s*=(?!=)", re.MULTILINE)
# Python binds a module's names by assignment at a line's start (`g: _AppCtxGlobals = LocalProxy(...)`,
# `DEFAULT_POOLSIZE = 10`): flask's `g` and `current_app` are defined nowhere else. Not a dunder
# (`__all__`), not a comparison, and only in Python: elsewhere such a line is a statement.
_PY_BOUND = re.compile(r"^(?!__\w+__\b)([A-Za-z_]\w*)\s*(?::[^=\n]+)?=(?!=)", re.MULTILINE)
# Go groups a file's constants, variables and types in blocks (`const (\n\tDebugMode = "debug"\n)`):
# each line of a block at a line's start declares its first name; a block inside a function is local.
_GO_BLOCK = re.compile(r"^(?:const|var|type)\s*\((.*?)^\)", re.MULTILINE | re.DOTALL)
_GO_BLOCK_NAME = re.compile(r"^[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
# C and C++ define a function with no keyword: its return type and qualifiers at a line's start,
# the name (on the next line in GNU's style), the parameters (over any lines), then the body
# (`static void init_once(void) {`, `auto basic_json::dump() const -> string_t {`). A prototype
# ends with `;`, a call is indented or has no type before it. A chunk merging small functions
# (libuv's `uv__work_submit` between two static helpers) had no symbol to name them. The return
# type may be qualified and the function a template (`CLI11_INLINE std::vector<std::string>
# split_up(...) {`, `template <typename T>\nstd::string join(...) {`): without them a C++ library's
# functions returning `std::string` or `leveldb::Status` defined nothing.
_TEMPLATE_ARGS = r"(?:<[^;{}()\n]*>)?"  # on one line: spanning lines, it scanned whole bodies
_QUALIFIED = rf"(?:[A-Za-z_]\w*{_TEMPLATE_ARGS}::)*[A-Za-z_]\w*{_TEMPLATE_ARGS}"


def _c_function(indent: str) -> re.Pattern[str]:
    return re.compile(
        # a line without a parenthesis, nor the next one, defines no function: skipped at once
        rf"^(?=.*\(|.*\n.*\(){indent}(?:template[ \t]*<[^;{{}}()]*>[ \t]*\n?{indent})?"
        r"(?!(?:return|else|case|throw|new|delete|goto)\b)"
        rf"((?:{_QUALIFIED}(?:[ \t*&]+|[ \t*&]*\n{indent}))+)"
        rf"(?:(?:[A-Za-z_]\w*{_TEMPLATE_ARGS}::)*([A-Za-z_]\w*){_TEMPLATE_ARGS}::)?"
        rf"(~?[A-Za-z_]\w*)\s*\([^;{{}}]{{0,600}}\)"
        r"\s*(?:(?:const|noexcept|override|final|mutable)\b\s*)*(?:->[^;{}]{0,200})?\{",
        re.MULTILINE,
    )


_C_FUNCTION = _c_function("")
# C++ defines a class's methods inside it, indented (`  auto get_name() const -> std::string {`,
# `bool is_boolean() const noexcept {`): 38 % of the functions tree-sitter finds in five C++
# libraries, none of which a chunk merging a class's small methods named. In C an indented line
# with a type before a call is a statement's body; C++ gets the indented form only.
_CPP_FUNCTION = _c_function("[ \t]*")
_NOT_FUNCTIONS = frozenset("if else for while switch return sizeof do case goto defined".split())
# What may stand before a constructor's name, which has no return type: specifiers, and macros
# (`FMT_CONSTEXPR formatter() {}` in a specialization of fmt's formatter, which it does not define).
_SPECIFIER = re.compile(r"(?:explicit|constexpr|consteval|inline|virtual|[A-Z][A-Z0-9]*_[A-Z0-9_]+)$")


def _function(head: str, owner: str, name: str) -> bool:
    """A function's name, not a control statement's, nor a class's constructor or destructor
    defined out of it (`logger::logger(...)`: the class is defined where `class logger {` is) or
    in it (no return type before its name)."""
    if name in _NOT_FUNCTIONS or name.lstrip("~") == owner:
        return False
    return not all(_SPECIFIER.match(t) for t in head.replace("\n", " ").split())


# Java's and C#'s methods have no keyword either: an indented line of modifiers, a return type,
# the name, the parameters and the body (`public void beginArray() throws IOException {`); a class
# chunk merging a few small methods (gson's JsonReader) named none of them. Not a constructor (no
# type), an anonymous class (`new Runnable() {`) nor a control statement.
_JAVA_MODIFIERS = (
    "public|protected|private|static|final|abstract|synchronized|native|default|strictfp|virtual|"
    "override|sealed|async|extern|unsafe|partial|internal"
)
_JAVA_METHOD = re.compile(
    rf"^[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?\s+)*(?:(?:{_JAVA_MODIFIERS})\s+)*(?:<[^;{{}}()\n]*>[ \t]+)?"
    rf"(?!(?:new|return|throw|else|case|{_JAVA_MODIFIERS})\b)[\w.$]+(?:<[^;{{}}()\n]*>)?(?:\[\])*\??[ \t]+"
    r"([A-Za-z_$][\w$]*)[ \t]*\([^;{}]{0,400}\)\s*(?:throws\s+[\w.$, ]+)?\{",
    re.MULTILINE,
)
# TypeScript's and JavaScript's class and object methods: an indented name with its modifiers,
# parameters and body (`  async #handleError(err: Error): Promise<Response> {`); not a call that
# passes a callback (`it('works', async function () {`; `describe('x', () => {` has no body after
# its parenthesis), nor an overload's signature whose type spans lines. The return type stays on
# its line: one spanning lines made every call of semicolon-less code a long search.
_JS_METHOD = re.compile(
    r"^[ \t]+(?:(?:public|private|protected|static|readonly|async|override|abstract|get|set)\s+)*\*?[ \t]*"
    r"#?([A-Za-z_$][\w$]*)[ \t]*(?:<[^;{}()\n]*>)?\(([^;{}]{0,400})\)"
    r"[ \t]*(?::[ \t]*[^;{}=\n]{1,200})?[ \t]*\{",
    re.MULTILINE,
)
_NOT_METHODS = _NOT_FUNCTIONS | {"catch", "constructor", "function", "with", "synchronized"}
# C's typedefs name the type last: `typedef struct jv_s jv;`, `typedef enum { ... } jv_kind;`.
_TYPEDEF = re.compile(r"^typedef\s[^;{}]*?\b([A-Za-z_]\w*)\s*;|^\}\s*([A-Za-z_]\w*)\s*;", re.MULTILINE)


# C names a type by its keyword where it uses it too: `struct bytecode *bc`, `struct frame fr;`,
# `(struct bytecode*)x`, `struct X make(void)`. What follows the name tells a use from a definition
# (`struct X {`, `struct X : Base`, Rust's `struct Unit;` and `struct Pair(u8)`).
_TAGGED = re.compile(r"(?:struct|union|enum)\s+\w+$")
_USED = re.compile(r"\s*[*&),]|\s+[A-Za-z_]\w*\s*[;,=)\[(]")


# C++ specializes a template by naming it with arguments: `template <> struct formatter<my_type> {`
# is one more case of fmt's `formatter`, whose definition is `struct formatter {` in base.h (fmt
# specializes it 81 times, its tests and users more). C has no templates, so `.h` files read alike.
_SPECIALIZED = re.compile(r"(?:struct|class|union)\s+(?:\w+::)*\w+$")


def _definitions(text: str, lang: str | None = None) -> list[str]:
    c_family = lang in ("c", "cpp")
    return [
        m.group(1)
        for m in _DECLARED.finditer(text)
        if not (_TAGGED.search(m.group(0)) and _USED.match(text, m.end()))
        and not (c_family and text.startswith("<", m.end()) and _SPECIALIZED.search(m.group(0)))
    ]


# Kept for the chunks searches meet again: ranking asks what each candidate declares, several
# times a search and again in the next one (a fifth of a search's time went to these patterns).
@functools.lru_cache(maxsize=8192)
def declared(text: str, lang: str | None = None) -> tuple[str, ...]:
    """The names declarations in `text` introduce, as written: its declarations, its top-level
    variables and constants, C's typedefs and functions, Java's, C#'s and JavaScript's methods, a
    Python module's assigned names and Go's grouped ones."""
    typedefs = [a or b for a, b in _TYPEDEF.findall(text)]
    bound = _PY_BOUND.findall(text) if lang == "python" else []
    if lang == "go":
        bound = [n for block in _GO_BLOCK.findall(text) for n in _GO_BLOCK_NAME.findall(block)]
    keywordless = keywordless_functions(text, lang)
    return tuple(
        _definitions(text, lang)
        + _TOP_LEVEL.findall(text)
        + typedefs
        + _ASSIGNED.findall(text)
        + bound
        + keywordless
    )


def keywordless_functions(text: str, lang: str | None) -> list[str]:
    """The functions and methods `text` defines with no keyword before their name: C's and C++'s,
    Java's and C#'s, TypeScript's and JavaScript's."""
    if lang in ("c", "cpp"):
        found = (_CPP_FUNCTION if lang == "cpp" else _C_FUNCTION).findall(text)
        return [name for head, owner, name in found if _function(head, owner, name)]
    if lang in ("java", "csharp"):
        return [n for n in _JAVA_METHOD.findall(text) if n not in _NOT_METHODS]
    if lang in ("typescript", "javascript"):
        found = _JS_METHOD.findall(text)
        return [n for n, params in found if n not in _NOT_METHODS and "function" not in params]
    return []


def symbol_parts(symbol: str | None) -> list[str]:
    """`JsonFile.load` -> [`JsonFile`, `load`]; `std::vector` -> [`std`, `vector`]."""
    return [p for p in re.split(r"\.|::|#", symbol or "") if p]


def file_stem(relative_path: str) -> str:
    """The file's name less its extension, or "" when it has two (`Foo.test.ts` tests Foo)."""
    stem = relative_path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return "" if "." in stem else stem


def names_of(
    relative_path: str, lang: str | None, symbol: str | None, chunk_type: str | None, text: str
) -> list[str]:
    """What a code chunk defines or is named after, squashed and sorted: its symbol's parts (when
    it is a declaration), the names declared in its text, its file's stem. [] for other files."""
    if lang not in CODE_LANGS:
        return []
    out: list[str] = []
    if symbol and chunk_type in DECLARATIONS:
        out += symbol_parts(symbol)
    if stem := file_stem(relative_path):
        out.append(stem)
    out += declared(text, lang)
    names = [n for n in dict.fromkeys(squash(n) for n in out) if n]
    return sorted(names[:MAX_NAMES])
