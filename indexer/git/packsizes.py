"""Object sizes from git's on-disk formats without inflating whole objects.

A pack entry's header holds the object's size; a delta's (offset or ref) holds only the delta's
size, but the delta's own first bytes hold the result size, so inflating ~20 bytes is enough.
A loose object starts with "<type> <size>\\0". Format: gitformat-pack(5). Pure functions over
bytes; gitobjects.py finds the pack and offset (locate: over dulwich's pack objects, without
importing dulwich).
"""

from __future__ import annotations

import mmap
import zlib
from pathlib import Path
from typing import Any

_OFS_DELTA, _REF_DELTA = 6, 7
_SHA1_LEN = 20
# Two 7-bit varints (base size, result size) take at most 20 bytes for any real object. A
# deflate block may open with a few hundred bytes of Huffman tables before its first output
# byte, so feed up to 1 KiB; inflating stops once 20 bytes are out.
_PROBE = 1024
_HEAD = 20


def _varint_le(data: bytes, pos: int) -> tuple[int, int]:
    """A little-endian base-128 varint (delta headers); returns (value, next position)."""
    value = shift = 0
    while True:
        if pos >= len(data):
            raise ValueError("truncated varint")
        byte = data[pos]
        value |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
        if not byte & 0x80:
            return value, pos


def packed_size(buf: bytes | mmap.mmap, offset: int) -> int:
    """The inflated size of the object at `offset` in a pack (a delta's result size).

    Raises ValueError or zlib.error on data it cannot read; callers fall back to inflating.
    """
    byte = buf[offset]
    type_num, size, shift, pos = (byte >> 4) & 7, byte & 0x0F, 4, offset + 1
    while byte & 0x80:
        byte = buf[pos]
        size |= (byte & 0x7F) << shift
        pos, shift = pos + 1, shift + 7
    if type_num == _OFS_DELTA:
        while buf[pos] & 0x80:
            pos += 1
        pos += 1
    elif type_num == _REF_DELTA:
        pos += _SHA1_LEN
    else:
        return size
    head = zlib.decompressobj().decompress(bytes(buf[pos : pos + _PROBE]), _HEAD)
    _base, after = _varint_le(head, 0)
    return _varint_le(head, after)[0]


def loose_size(path: Path) -> int:
    """The size of a loose object from its inflated "<type> <size>\\0" header."""
    with path.open("rb") as fh:
        head = zlib.decompressobj().decompress(fh.read(_PROBE), 64)
    return int(head.split(b"\0", 1)[0].split(b" ", 1)[1])


def locate(packs: list[Any], blob_id: str) -> tuple[int, int]:
    """(pack number, offset) of an object in dulwich's packs (their indexes answer), or
    (len(packs), 0) for an object that is not packed."""
    raw = bytes.fromhex(blob_id)
    for i, pack in enumerate(packs):
        try:
            return i, int(pack.index.object_offset(raw))
        except KeyError:
            continue
    return len(packs), 0
