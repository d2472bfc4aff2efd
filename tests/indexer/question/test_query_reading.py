"""What a question asks, read before ranking (issue 34): one name or a sentence, the names it
spells, the words that may name a file, and what it asks for on purpose."""

from __future__ import annotations

import pytest
from monodex.indexer.points import defined
from monodex.indexer.question import query
from monodex.indexer.rank import filenames


@pytest.mark.parametrize(
    ("text", "symbol", "names"),
    [
        ("Router", "Router", {"Router"}),
        ("tryRender", "tryRender", {"tryRender"}),
        ("super_len", "super_len", {"super_len"}),
        ("JsonFile.load", "JsonFile.load", {"JsonFile", "load"}),
        ("std::vector", "std::vector", {"std", "vector"}),
        ("`parse()`", "parse", {"parse"}),
        ("H", "H", {"H"}),
        # a name with the kind of thing it is
        ("the Router class", "Router", {"Router"}),
        ("fn spawn", "spawn", {"spawn"}),
        ("HashMap struct", "HashMap", {"HashMap"}),
        ("a class", None, set()),
        ("error type", None, set()),
        ("how are signed cookies verified", None, set()),
        ("where is ShouldBindJSON defined", None, {"ShouldBindJSON"}),
        ("what does `basic_json::parse` throw", None, {"basic_json", "parse"}),
    ],
)
def test_one_name_or_a_sentence(text: str, symbol: str | None, names: set[str]) -> None:
    q = query.read(text)
    assert q.symbol == symbol
    assert set(q.names) == names


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("ci: use m1 macos", {"ci"}),
        ("[cli] ci(release): pin zig", {"ci"}),
        ("fix the release workflow on windows", {"ci"}),
        ("docs(readme): explain the runner", {"docs"}),
        ("test: skip the memory test under wasi", {"test"}),
        ("where are the unit tests for the router", {"test"}),
        ("how is the route tree matched", set()),
        ("TestClient", set()),  # a name: it asks for the class, not for tests
        # the code that runs tests, and a verb, ask for no test: click's runner is testing.py
        ("How does the test runner capture stdout and stderr separately?", set()),
        ("where are the testing helpers for handlers", set()),
        ("how are debug, release and test modes selected", set()),
        ("when a path is tested against many globs at once", set()),
        ("in tests, how can I change the session before a request with the test client", {"test"}),
        # a mocking library the project ships is its code (retrofit-mock's tests ranked 2nd-4th
        # for "the mock module"); mocks a test uses are tests
        ("How does the mock module fake network behaviour for a service interface?", set()),
        ("how does the mock transport answer requests", set()),
        ("where are the mocks for the session", {"test"}),
        ("example of an error handling middleware", {"example"}),
        # a case of the question's own, not the examples folder
        ("how are values ordered when compared, for example null versus a number", set()),
        ("For example, how is a timeout retried?", set()),
        ("where are the documentation site's settings", {"docs"}),
        # a request from another site, not the docs site
        ("how does the CSRF protection block a cross-site form submission", set()),
        ("where are the Claude skills for this repository", {"agent"}),
        ("the rules for Cursor", {"agent"}),
        # an HTTP client's header and a terminal's cursor are no coding agents
        ("where is the default User-Agent header set", set()),
        ("how is the user agent string built", set()),
        ("how does the console move the cursor to a position", set()),
        ("fix(reporter): keep interactive prompts visible", set()),
        ("where is the system prompt the LLM gets", {"agent"}),
    ],
)
def test_what_a_question_asks_for_on_purpose(text: str, asks: set[str]) -> None:
    assert set(query.read(text).asks) == asks


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("how does coercing a string into a number work", True),
        ("where is the router", True),
        ("in tests, how can I modify the session", True),
        ("which component owns the URLSession", True),
        ("retries after a timeout?", True),
        ("Add mention of why/how we use WRY", False),  # a change request
        ("feat(cli): what the publish step checks", False),
        ("Router", False),
        # a phrase is asked as a question is (a search box gets both)
        ("retry with backoff", True),
        ("printing unicode to the windows console", True),
        ("websocket subscription cleanup", True),
        ("show me where the router matches paths", True),  # asked of a tool, as agents ask
        ("find the code that signs cookies", True),
        ("client retries of failed requests", True),
        ("path matching in the router", True),
        # a change request opens with a verb in any of its forms, a type or a scope
        ("Fixed the router", False),
        ("dropped polling on close", False),
        ("Introducing Farm Guru on Gurubase.io", False),
        ("Adding retries to the client", False),
        ("Feat improve load profiles", False),
        ("VS Code: Ubuntu development container via Docker", False),
        ("cobuilds: yield priority to other tasks", False),
        ("(chore) covector comment on forks", False),
    ],
)
def test_a_question_about_the_code_or_a_change_request(text: str, question: bool) -> None:
    read = query.read(text)
    assert read.question is question
    # a phrase may still be a change: the history of such changes may name its files
    assert read.phrase is (question and not query._QUESTION.search(text))
    assert read.may_be_change is ((not question or read.phrase) and not read.is_symbol)


@pytest.mark.parametrize(
    ("text", "dependencies"),
    [
        ("fix(deps): update dependency @emnapi/core to v1.11.0", {"@emnapi/core"}),
        ("fix(deps): update rust crate convert_case to 0.7", {"convert_case"}),
        ("build(deps-dev): bump rollup from 4.21.0 to 4.22.4 in /packages/api", {"rollup"}),
        ("feat: upgrade minimatch to v10.0.3", {"minimatch"}),
        ("Update how cobuilds cache builds that succeed with warnings", set()),
        ("Update the `rush-pnpm patch` output to reference `rush-pnpm patch-commit`", set()),
        ("Upgrade pnpm-sync-lib and fix an edge case", set()),
        ("fix(covector): asset configuration, update action", set()),
        ("fix(deps): update dependency postcss to ^8.5.19", {"postcss"}),
        # a change of code that says "update X to": no version follows, no dependency is named
        ("fix(reactivity): update iterator to check for completion instead of value presence", set()),
        ("chore: update docs to mention the new flag", set()),
    ],
)
def test_the_package_a_dependency_update_names(text: str, dependencies: set[str]) -> None:
    assert set(query.read(text).dependencies) == dependencies


def test_the_words_that_may_name_a_file_leave_question_words_out() -> None:
    q = query.read("fix(cli): validate publish-effective exports in threadless wasi pre-publish")
    assert {"publish", "validate", "exports", "wasi", "pre-publish"} <= q.words
    assert not {"fix", "in", "the"} & q.words


@pytest.mark.parametrize(
    ("path", "share"),
    [
        ("cli/src/api/pre-publish.ts", 1.0),  # `pre` and `publish`: both said
        ("apps/lib/src/cli/commands/fetch.ts", 0.0),
        ("src/services/GitRemoteFetchConfigService.ts", 0.0),
        ("crates/napi/src/index.ts", 0.0),  # a generic name says nothing
    ],
)
def test_how_much_of_a_file_name_a_question_says(path: str, share: float) -> None:
    q = query.read("validate exports before pre-publish")
    assert filenames.name_coverage(q.words, path)[0] == share


def test_a_file_named_by_part_of_the_question() -> None:
    q = query.read("sparo fetch behaves like git fetch")
    assert filenames.name_coverage(q.words, "apps/lib/src/cli/commands/fetch.ts")[0] == 1.0
    share, said = filenames.name_coverage(q.words, "src/services/GitRemoteFetchConfigService.ts")
    assert share == pytest.approx(2 / 5) and said == {"git", "fetch"}


@pytest.mark.parametrize(
    ("path", "symbol", "chunk_type", "text", "expected"),
    [
        ("utils.go", None, "text", "type H map[string]any\n\nfunc f() {}\n", {"h", "f", "utils"}),
        (
            "axum-core/src/extract/default_body_limit.rs",
            "DefaultBodyLimit",
            "struct",
            "pub struct DefaultBodyLimit {",
            {"defaultbodylimit"},
        ),
        ("src/flask/app.py", "Flask.run", "method", "    def run(self):", {"flask", "run", "app"}),
        ("zconf.h", None, "text", "#define MAX_WBITS 15\n", {"maxwbits", "zconf"}),
        ("src/Json.kt", "Json", "class", "annotation class Json(val name: String)", {"json"}),
        (
            "lib/utils.js",
            None,
            "text",
            "exports.compileTrust = function(val) {\n  return val;\n};\n",
            {"compiletrust", "utils"},
        ),
        (  # an import under another name defines nothing
            "lib/application.js",
            None,
            "text",
            "var compileTrust = require('./utils').compileTrust;\nvar Router = router.Router;\n",
            {"application"},
        ),
        ("src/jv.h", None, "code", "typedef enum {\n  JV_KIND_NULL,\n} jv_kind;\n", {"jvkind", "jv"}),
        (  # C++'s scoped enums: the name follows `class`, which is no name
            "include/json/detail/kinds.hpp",
            None,
            "text",
            "namespace detail {\nenum class value_t : std::uint8_t { null, object };\nenum struct mode { a };\n}\n",
            {"detail", "valuet", "mode", "kinds"},
        ),
        (  # C uses a struct by its keyword too: a pointer, a variable, a cast, a return type
            "src/execute.c",
            None,
            "text",
            "static struct bytecode *optimize(struct bytecode *bc) {\n  struct frame fr;\n"
            "  return (struct bytecode*)x;\n}\nstruct jq_state {\n  int n;\n};\n"
            "struct inst\n{\n  int op;\n};\nunion jvp_u { int i; };\n",
            {"optimize", "jqstate", "inst", "jvpu", "execute"},
        ),
        (  # C's functions have no keyword: a chunk merging small ones (libuv's threadpool.c) defines
            # each; a prototype, a call and a control statement define nothing
            "src/threadpool.c",
            None,
            "code",
            "static void init_once(void) {\n  init_threads();\n}\n\n\nvoid uv__work_submit(uv_loop_t* loop,\n"
            "                     void (*work)(struct uv__work* w)) {\n  uv_once(&once, init_once);\n"
            "  if (x) {\n  }\n}\n\nUV_EXTERN int uv_cancel(uv_req_t* req);\nTEST_IMPL(threadpool) {\n}\n",
            {"initonce", "uvworksubmit", "threadpool"},
        ),
        (  # ... and C++'s, qualified by their class, with a trailing return type
            "include/json/dump.hpp",
            None,
            "text",
            "template <typename T>\nauto basic_json<T>::dump(int indent) const -> string_t {\n  return s;\n}\n"
            "inline void\nserializer::flush()\n{\n}\n"
            # a class's constructor and destructor defined out of it do not define the class
            "SPDLOG_INLINE logger::logger(const logger &other) {\n}\ndetail::registry::~registry() {}\n",
            {"dump", "flush"},
        ),
        (  # ... returning a qualified type (CLI11's `split_up`, leveldb's `Status`), as a template
            "include/CLI/impl/StringTools_inl.hpp",
            None,
            "text",
            "CLI11_INLINE std::vector<std::string> split_up(std::string str, char delimiter) {\n}\n"
            "leveldb::Status DestroyDB(const std::string& dbname) {\n}\n"
            "template <typename T>\nstd::string join(const T &v) {\n}\n",
            {"splitup", "destroydb", "join", "stringtoolsinl"},
        ),
        (  # ... and C++'s methods defined in their class, indented (json's `is_boolean`, fmt's
            # trailing return types, overrides); a return, a call, a control statement define nothing
            "include/json.hpp",
            None,
            "text",
            "  bool is_boolean() const noexcept\n  {\n    return m_type == value_t::boolean;\n  }\n"
            "  auto str() const -> std::wstring { return {}; }\n"
            "  void log(const msg &m) override {\n    return sink(m) {\n    else if (x) {\n    run(a);\n  }\n"
            # a constructor has no return type: a specialization's does not define its template
            "  FMT_CONSTEXPR formatter() {}\n  explicit basic_json(int v) {\n  }\n",
            {"isboolean", "str", "log", "json"},
        ),
        (  # ... but in C an indented line is a statement
            "src/loop.c",
            None,
            "text",
            "int main(void) {\n  int handle(uv_loop_t* loop) {\n}\n",
            {"main", "loop"},
        ),
        (  # Kotlin's generic and extension functions name the function, not the receiver type
            "exposed-core/src/main/kotlin/Functions.kt",
            None,
            "text",
            "fun <T : Instant?> Expression<T>.second() = Second(this)\n"
            "infix fun <T> Expression<T>.greaterSubQuery(query: AbstractQuery<*>): Op<Boolean> = x\n"
            "suspend fun <T> suspendTransaction(block: () -> T): T {\n}\n"
            "fun List<String>.writeTo(path: String) {\n}\n",
            {"second", "greatersubquery", "suspendtransaction", "writeto", "functions"},
        ),
        (  # ... while every language's own struct, enum and union definitions still count
            "src/lib.rs",
            None,
            "text",
            "pub struct Unit;\npub struct Pair(u8, u8);\nstruct Map<K, V> where K: Eq {\n}\nenum E { A }\n",
            {"unit", "pair", "map", "e", "lib"},
        ),
        ("Sources/Model.swift", None, "text", "struct Model: Codable {\n}\n", {"model"}),
        (  # Java's methods have no keyword: a class chunk merging small ones (gson's JsonReader)
            # defines each; not a constructor, an anonymous class, a control statement or a call
            "gson/src/main/java/com/google/gson/stream/JsonReader.java",
            "JsonReader",
            "class",
            "  public final int getNestingLimit() {\n    return nestingLimit;\n  }\n"
            "  @Override public <T> TypeAdapter<T> create(Gson gson,\n      TypeToken<T> type) throws IOException {\n"
            "    Runnable r = new Runnable() {\n    };\n    if (x) {\n    } else if (y) {\n    }\n    run(a);\n  }\n"
            "  public JsonReader(Reader in) {\n  }\n  abstract void skip();\n",
            {"jsonreader", "getnestinglimit", "create"},
        ),
        (  # ... nor TypeScript's and JavaScript's, in a class or an object; a call passing a
            # callback defines nothing
            "src/request.ts",
            None,
            "code",
            "  async #cachedBody(key: string): Promise<Body> {\n  }\n  param(key?: string): string | undefined {\n  }\n"
            "  constructor(raw: Request) {\n  }\n  render(h) {\n  },\n"
            "  it('works', async function () {\n  })\n  app.get('/', (c) => {\n  })\n  if (a) {\n  }\n",
            {"cachedbody", "param", "render", "request"},
        ),
        (  # Python's module-level names: flask's `g` and `current_app`, requests' DEFAULT_POOLSIZE;
            # not a method's locals, a comparison, a keyword argument or a dunder like `__all__`
            "src/flask/globals.py",
            None,
            "text",
            "__all__ = ['g']\ng: _AppCtxGlobals = LocalProxy(_cv_app, 'g')\ncurrent_app = LocalProxy(_cv_app)\n"
            "DEFAULT_POOLSIZE = 10\nx == 1\nf(a=1)\ndef h():\n    local = 2\n",
            {"g", "currentapp", "defaultpoolsize", "h", "globals"},
        ),
        (  # Go's grouped declarations: gin's DebugMode, an error variable, a type of a `type (` block
            "mode.go",
            None,
            "text",
            'const (\n\t// DebugMode indicates gin mode is debug.\n\tDebugMode = "debug"\n\tReleaseMode = "release"\n)\n'
            'var (\n\tErrMissing, errOther = errors.New("x"), nil\n)\n\ntype (\n\tHandler func()\n)\n'
            "func f() {\n\tconst (\n\t\tlocal = 1\n\t)\n}\n",
            {"debugmode", "releasemode", "errmissing", "handler", "f", "mode"},
        ),
        (  # ... in Python only: a line of another language that looks the same is no declaration
            "src/main.c",
            None,
            "text",
            "counter = 0;\n",
            {"main"},
        ),
        (  # C++'s template specializations name the template, they do not define it (fmt's 81
            # `struct formatter<...>`); in Rust, TypeScript and the rest `Name<T>` is a definition
            "include/fmt/chrono.h",
            None,
            "code",
            "template <> struct formatter<weekday, Char> : private formatter<std::tm, Char> {\n};\n"
            "template <> class fmt::formatter<tm> {};\nstruct tm_writer {\n};\n",
            {"tmwriter", "chrono"},
        ),
        ("src/lib.rs", None, "code", "pub struct Cache<K, V> {\n}\n", {"cache", "lib"}),
        ("docs/Structs/Empty.html", None, "text", "<h1>class Empty</h1>", set()),  # a page documents
        ("README.md", None, "text", "class Router", set()),
        ("src/Foo.test.ts", None, "text", "describe('x')", set()),  # tests Foo, names nothing
    ],
)
def test_what_a_chunk_defines(
    path: str, symbol: str | None, chunk_type: str, text: str, expected: set[str]
) -> None:
    from monodex.indexer.points.langs import lang_of

    assert set(defined.names_of(path, lang_of(path), symbol, chunk_type, text)) == expected


def test_a_query_that_is_one_path_is_read_as_that_path() -> None:
    for text, path in (
        ("src/router/trie-router/router.ts", "src/router/trie-router/router.ts"),
        ("./packages/core/", "packages/core/"),
        ("/src/index.ts", "src/index.ts"),
        ("hono-base.ts", "hono-base.ts"),
        ("router.ts", "router.ts"),  # also one name
        ("libraries/rush-lib", "libraries/rush-lib"),
        ("src/index.ts:42", "src/index.ts"),
        ("src/index.ts:42:7", "src/index.ts"),
    ):
        assert query.read(text).path == path, text
    assert (query.read("src/index.ts:42:7").line, query.read("src/index.ts").line) == (42, None)
    for text in ("JsonFile.load", "std::vector", "how is src/index.ts loaded", "Router", "fix: a/b"):
        assert query.read(text).path is None, text
