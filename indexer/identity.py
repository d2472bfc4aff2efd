"""Deterministic ids, bit-compatible with the original monodex 0.4 (DESIGN.md "Identity")."""

from __future__ import annotations

import hashlib

import xxhash

_SEP = b"\xff"  # Rust's `Hash for str` writes the bytes then 0xFF; we must match it exactly.


def _h(data: bytes, seed: int) -> int:
    return int(xxhash.xxh64_intdigest(data, seed=seed))


def file_id(*, embedder_id: str, chunker_id: str, blob_id: str, relative_path: str) -> str:
    parts = (embedder_id, chunker_id, blob_id, relative_path)
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
