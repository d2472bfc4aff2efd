"""Deterministic ids, bit-compatible with the original monodex 0.4 (DESIGN.md "Identity")."""

from __future__ import annotations

import hashlib

import xxhash

_SEP = b"\xff"  # Rust's `Hash for str` writes the bytes then 0xFF; we must match it exactly.


def _h(data: bytes, seed: int) -> int:
    return int(xxhash.xxh64_intdigest(data, seed=seed))


# Bumped whenever what file_id covers changes: part of the crawl's implementation facts, so every
# label built with other ids gets a full crawl on its next refresh. 2: the package name.
SCHEME = "file-id:v2"


def file_id(
    *, embedder_id: str, chunker_id: str, blob_id: str, relative_path: str, package_name: str = ""
) -> str:
    """The seed's four fields, then the package name when there is one.

    Every chunk field that depends on more than content, path and implementation must be in
    the id, or two labels that give one file different values share one copy and one of them
    is wrong (issue 12: verify --repair of one label broke the others). The package name is
    that input: the payload, the breadcrumb and the embedded text all name it. Without one,
    the id is exactly the seed's (golden values in tests/kernel/test_identity.py)."""
    parts = (embedder_id, chunker_id, blob_id, relative_path, *((package_name,) if package_name else ()))
    return f"{_h(b''.join(p.encode() + _SEP for p in parts), 0):016x}"


def string_to_uuid(value: str) -> str:
    data = value.encode() + _SEP
    h1, h2 = _h(data, 0), _h(data, 1)
    return (
        f"{h1 >> 32:08x}-{(h1 >> 16) & 0xFFFF:04x}-{h1 & 0xFFFF:04x}-"
        f"{h2 >> 48:04x}-{h2 & 0xFFFFFFFFFFFF:012x}"
    )


def chunk_point_id(file_id_: str, ordinal: int) -> str:
    return string_to_uuid(f"{file_id_}:{ordinal}")


def label_point_id(label_id: str) -> str:
    return string_to_uuid(label_id)


def git_blob_sha1(content: bytes) -> str:
    """What `git hash-object` prints: working-dir files share chunks with commit labels."""
    return hashlib.sha1(b"blob %d\x00" % len(content) + content).hexdigest()


def content_hash(content: bytes) -> str:
    return "sha256:" + hashlib.sha256(content).hexdigest()
