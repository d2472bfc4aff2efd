"""A `.h` file, chunked as C or as C++ by what it holds.

The suffix says nothing: libuv's and zlib's headers are C, leveldb's, fmt's and spdlog's (and
most C++ projects') are C++. Read by the C grammar, leveldb's `db/version_edit.h` was a function
named `leveldb` (its `namespace leveldb {`) and no class `VersionEdit`; its methods, defined in
the class, defined nothing a question could name. The built-in policy's `.h` file type is this
strategy; a header with a C++ construct at a line's start (a namespace, a template, a class with
a base or a body, an access label, a C++ standard header) or any `std::` name is C++. C's own
`#ifdef __cplusplus` / `extern "C"` guard is none of those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from monodex.indexer.chunkers.base import Delegating

NAME = "header"
DELEGATES = ("c", "cpp")
_CPP = re.compile(
    r"^[ \t]*(?:namespace(?:[ \t]+[\w:]+)?[ \t]*\{|template[ \t]*<|(?:public|private|protected)[ \t]*:"
    r"|using[ \t]+namespace\b"
    r"|(?:class|struct)[ \t]+\w+[ \t]*(?:final[ \t]*)?:[ \t]*(?:public|private|protected)\b"
    r"|class[ \t]+\w+[ \t]*(?:final[ \t]*)?\{?[ \t]*$"
    r"|#[ \t]*include[ \t]*<(?:string|vector|memory|cstdint|cstddef|cstdio|cstdlib|iostream|map|utility"
    r"|type_traits|functional|atomic|mutex|thread|chrono)>)"
    r"|\bstd::\w",
    re.MULTILINE,
)


def written_in(text: str) -> str:
    """`cpp` for a header written in C++, else `c` (the chunker's and the `lang` payload's name)."""
    return "cpp" if _CPP.search(text) else "c"


@dataclass(frozen=True)
class HeaderChunker(Delegating):
    """The `header` strategy: the C or the C++ chunker, as `written_in` says."""

    name: str = NAME
    ORDER: ClassVar[tuple[str, ...]] = DELEGATES

    def choose(self, text: str, relative_path: str) -> str:
        return written_in(text)
