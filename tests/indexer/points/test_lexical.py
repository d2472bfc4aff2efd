"""The code-aware sparse tokenizer: whole names and their words."""

from __future__ import annotations

from monodex.indexer.points import lexical


def test_compounds_identifiers_and_words() -> None:
    t = lexical.terms("JsonFile.loadAndValidate(package_deps_hash, 'node-core-library/src/Path.ts')")
    for term in (
        "jsonfile.loadandvalidate",  # the compound, whole
        "jsonfile",
        "json",
        "file",
        "loadandvalidate",
        "load",
        "and",
        "validate",
        "package_deps_hash",
        "package",
        "deps",
        "hash",
        "node-core-library/src/path.ts",
        "node",
        "core",
        "library",
        "src",
        "path",
        "ts",
    ):
        assert term in t, term


def test_pascal_case_acronyms_and_numbers() -> None:
    assert lexical.terms("parseHTTPResponse2") == ["parsehttpresponse2", "parse", "http", "response"]
    assert lexical.terms("XMLHttpRequest") == ["xmlhttprequest", "xml", "http", "request"]
    assert lexical.terms("a 1 42 x_y") == ["x_y"]  # single letters and bare numbers say nothing
    assert lexical.terms("a" * 200) == []  # data, not a name


def test_vectors() -> None:
    doc = lexical.document_vector("retry retry backoff")
    q = lexical.query_vector("retry with backoff")
    assert list(doc.indices) == sorted(doc.indices) and len(doc.indices) == 2
    by_index = dict(zip(doc.indices, doc.values, strict=True))
    retry = lexical.query_vector("retry").indices[0]
    backoff = lexical.query_vector("backoff").indices[0]
    assert by_index[retry] > by_index[backoff] > 0  # term frequency counts, saturating
    assert set(q.values) == {1.0} and len(q.indices) == 2  # "with" names nothing in code
    assert lexical.query_vector("where is the") == lexical.query_vector("where is the")
    assert len(lexical.query_vector("where is the").indices) == 3  # only question words: keep them
    assert lexical.document_vector("!!! ...").indices == ()


def test_the_verb_that_opens_a_change_request_is_not_matched() -> None:
    """ "Fix ...", "Add ...", "fix(scope): ..." say a change is asked for, not what it touches: the
    words match thousands of chunks (`addProject`, `// fix:` comments) and push the answer down.
    Only the opening word goes: "rush add" names a command and keeps "add"."""
    q = lexical.query_vector
    assert q("Fix retry backoff") == q("retry backoff")
    assert q("Add warm engine component factory") == q("warm engine component factory")
    assert q("fix(rush-lib): retry backoff") == q("rush-lib: retry backoff")
    assert q("feat: Add retry backoff") == q("retry backoff")
    assert q("[rush] Support retry backoff") == q("[rush] retry backoff")
    assert q("heft: add retry backoff") == q("heft: retry backoff")  # heft is a package, not a type
    assert q("Fix an issue with rush add") == q("an issue with rush add")
    assert len(q("fix").indices) == 1  # nothing else to match: the word stays


def test_snake_and_screaming_case_split_like_camel_case() -> None:
    """Rust, Python and Go names (issue 23): the tokenizer already splits at `_`, so chunks stored
    before the new languages and queries now are tokenised alike (no lexical re-index)."""
    t = lexical.terms("const MAX_FILE_BYTES: usize; fn parse_config(); napi::bindgen_prelude::Env")
    for term in ("max_file_bytes", "max", "file", "bytes", "parse_config", "parse", "config"):
        assert term in t, term
    assert {"napi", "bindgen_prelude", "bindgen", "prelude", "env"} <= set(t)
    # a query that says the words finds the snake_case name by them
    assert set(lexical.query_indices("parse config")) <= set(lexical.query_indices("parse_config"))
    # ... and asks for the name itself (lexical.joined)
    assert lexical.query_indices("parse_config")[0] in lexical.query_vector("parse config").indices


def test_an_inflected_word_also_asks_for_its_base_forms() -> None:
    """ "batched queries" asks about `batch` and `query`: terms match exactly, so a question's
    inflected words add their base forms, each a guess weighing less than the word as written."""
    f = lexical.forms_of
    assert f("batched") == ["batch", "batche"]
    assert f("queries") == ["query"]
    assert f("matches") == ["match"]
    assert f("closures") == ["closure"]
    assert f("closing") == ["clos", "close"]
    assert f("stopped") == ["stopp", "stoppe", "stop"]
    assert f("handlers") == ["handler"]
    # not inflections: short words, -ss / -us / -is endings, names with digits
    assert f("uses") == f("status") == f("process") == f("analysis") == f("utf8s") == []
    plain = lexical.query_vector("how are batched queries split")
    based = lexical.query_vector("how are batched queries split", base_forms=True)
    weights = dict(zip(based.indices, based.values, strict=True))
    assert set(plain.indices) < set(based.indices)
    batch, query = (lexical.query_vector(w).indices[0] for w in ("batch", "query"))
    assert weights[batch] == weights[query] == lexical.BASE_FORM_WEIGHT < 1.0
    words = {lexical.query_vector(w).indices[0] for w in ("batched", "queries", "split")}
    assert all(weights[i] == 1.0 for i in words)  # the words as written weigh in full
    # a word already in the question keeps its full weight
    both = lexical.query_vector("batch the batched calls", base_forms=True)
    assert dict(zip(both.indices, both.values, strict=True))[batch] == 1.0


def test_two_adjacent_words_also_ask_for_the_name_they_make() -> None:
    """ "error handler" is `errorHandler` or `error_handler` in the code: the query asks for both
    stored forms of each pair of adjacent words (an identifier lowercased whole, a snake_case
    compound), as guesses below a word's weight."""
    j = lexical.joined
    assert j("where is the error handler registered") == [
        "errorhandler", "error_handler", "handlerregistered", "handler_registered",
    ]
    # question words split pairs; a word written as code is a name already; short words make none
    assert j("how is the ChildProcess reaped") == j("what is an id") == j("kill the HTTP server") == []
    # a sentence's capital is not code; base forms pair up for a question
    assert j("Error handler") == ["errorhandler", "error_handler"]
    assert "batchquery" in j("batched queries", base_forms=True)
    assert "batchquery" not in j("batched queries")
    v = lexical.query_vector("where is the error handler")
    weights = dict(zip(v.indices, v.values, strict=True))
    camel, snake = (lexical.query_indices(n)[0] for n in ("errorHandler", "error_handler"))
    assert weights[camel] == weights[snake] == lexical.JOINED_WEIGHT < lexical.BASE_FORM_WEIGHT
