from __future__ import annotations

import subprocess
from pathlib import Path

from monodex.indexer.points import identity


def test_golden_values_match_the_original_monodex() -> None:
    fid = identity.file_id(
        embedder_id="jina-embeddings-v2-base-code:v1",
        chunker_id="typescript-partitioner:v1",
        blob_id="abc123",
        relative_path="libraries/foo/src/index.ts",
    )
    assert fid == "36803f883788943d"
    assert identity.chunk_point_id(fid, 1) == "f1148414-4a3f-fe69-c689-6aff098336d3"
    assert identity.label_point_id("rushstack:main") == "0e4cd38c-45b5-2410-0237-5abea0669b9c"


def test_the_package_is_a_fifth_field_only_when_there_is_one() -> None:
    seed = dict(
        embedder_id="jina-embeddings-v2-base-code:v1",
        chunker_id="typescript-partitioner:v1",
        blob_id="abc123",
        relative_path="libraries/foo/src/index.ts",
    )
    assert identity.file_id(**seed, package_name="") == "36803f883788943d"  # the seed's id
    # XXH64 over the same five fields, each followed by 0xFF, as the seed hashes four.
    assert identity.file_id(**seed, package_name="@rushstack/foo") == "27296e57674ea3fc"
    assert identity.file_id(**seed, package_name="@rushstack/bar") != "27296e57674ea3fc"


def test_file_id_depends_on_every_part() -> None:
    base = dict(embedder_id="e", chunker_id="c", blob_id="b", relative_path="p")
    ids = {identity.file_id(**base)}
    for key in base:
        ids.add(identity.file_id(**{**base, key: base[key] + "x"}))
    assert len(ids) == 5
    # The 0xFF separator keeps "ab"+"c" distinct from "a"+"bc".
    assert identity.file_id(embedder_id="ab", chunker_id="c", blob_id="", relative_path="") != (
        identity.file_id(embedder_id="a", chunker_id="bc", blob_id="", relative_path="")
    )


def test_blob_sha1_matches_git_hash_object(tmp_path: Path) -> None:
    content = b"export const x = 1;\r\nno newline at end"
    f = tmp_path / "f.ts"
    f.write_bytes(content)
    expected = subprocess.run(
        ["git", "hash-object", str(f)], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert identity.git_blob_sha1(content) == expected
