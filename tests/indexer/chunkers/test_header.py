"""A `.h` file is C or C++ by what it holds (chunkers/header.py)."""

from __future__ import annotations

import dataclasses

import pytest
from monodex.indexer.chunkers import CHUNKERS, chunk_file, chunker_id, header
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.chunkers.suffixes import strategy_for

_CPP = """#include <cstdint>

namespace leveldb {

class VersionEdit {
 public:
  VersionEdit() { Clear(); }
  void AddFile(int level, uint64_t file) {
    files_.push_back(level);
  }

 private:
  int files_;
};

}  // namespace leveldb
"""
_C = """#ifndef UV_H
#define UV_H
#ifdef __cplusplus
extern "C" {
#endif

typedef struct uv_loop_s uv_loop_t;
struct uv_loop_s {
  void* data;
  unsigned int active_handles;
};
UV_EXTERN int uv_loop_init(uv_loop_t* loop);

#ifdef __cplusplus
}
#endif
#endif
"""


@pytest.mark.parametrize(
    ("text", "lang"),
    [
        (_CPP, "cpp"),
        (_C, "c"),  # C's guard for C++ callers is no C++
        ("#pragma once\ntemplate <typename T>\nstruct formatter;\n", "cpp"),
        ("class RedisQtAdapter : public QObject {\n    Q_OBJECT\n};\n", "cpp"),
        ("inline std::string name() { return {}; }\n", "cpp"),
        ("/* class of errors */\nint class_of(int x);\n", "c"),
        ("", "c"),
    ],
)
def test_a_header_is_cpp_by_its_text(text: str, lang: str) -> None:
    assert header.written_in(text) == lang


def test_a_cpp_header_is_chunked_by_the_cpp_grammar() -> None:
    ctx = FileContext("db/version_edit.h", "", 60)
    chunks = chunk_file("header", _CPP, ctx)
    assert "".join(c.text for c in chunks) == _CPP
    assert chunks == chunk_file("cpp", _CPP, ctx)
    assert "VersionEdit" in " ".join(str(c.symbol_name) for c in chunks)
    as_c = chunk_file("c", _CPP, ctx)
    assert ("leveldb", "function") in {(c.symbol_name, c.chunk_type) for c in as_c}  # C's misreading
    assert ("leveldb", "function") not in {(c.symbol_name, c.chunk_type) for c in chunks}
    assert chunk_file("header", _C, ctx) == chunk_file("c", _C, ctx)


def test_both_delegates_versions_are_part_of_the_header_chunker_id() -> None:
    chunker = CHUNKERS["header"]
    assert isinstance(chunker, header.HeaderChunker)
    assert f"cpp={CHUNKERS['cpp'].version}" in chunker_id("header", 802)
    newer = dataclasses.replace(CHUNKERS["c"], version="v99")  # type: ignore[type-var]
    assert "c=v99" in header.HeaderChunker({**chunker.delegates, "c": newer}).version


def test_monodex_chunk_reads_a_header_as_the_crawl_does() -> None:
    assert strategy_for("version_edit.h", _CPP) == "header"
    assert strategy_for("uv.c") == "c" and strategy_for("format.hpp") == "cpp"
