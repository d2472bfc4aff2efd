"""`monodex view --path` (MCP had it, the CLI did not: issue 13) and --chunks, with flag-worded errors."""

from __future__ import annotations

import json

from monodex.main import main

TEXT = "".join(
    f"/** Adds {i}. */\nexport function add{i}(x: number): number {{\n  return x + {i};\n}}\n\n"
    for i in range(40)
)


def _json(capsys, *argv: str) -> tuple[int, dict[str, object] | None, str]:  # type: ignore[no-untyped-def]
    capsys.readouterr()
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out) if code == 0 else None, err


def test_view_by_path_reads_what_view_by_id_reads(git_repo, capsys) -> None:  # type: ignore[no-untyped-def]
    r = git_repo({"src/add.ts": TEXT}, name="acme")
    assert main(["catalog", "add", "acme", str(r.path)]) == 0
    assert main(["use", "--catalog", "acme", "--label", "main"]) == 0
    assert main(["crawl", "--commit", "HEAD", "--json"]) == 0
    code, by_path, _ = _json(capsys, "view", "--path", "./src/add.ts")
    assert code == 0 and by_path is not None
    chunks = by_path["chunks"]
    assert isinstance(chunks, list) and len(chunks) > 1
    assert "".join(c["text"] for c in chunks) == TEXT
    code, by_id, _ = _json(capsys, "view", "--id", str(by_path["file_id"]))
    assert by_id == by_path
    code, tail, _ = _json(capsys, "view", "--path", "src/add.ts", "--chunks", "2-end")
    assert tail is not None and tail["chunks"] == chunks[1:]
    code, same, _ = _json(capsys, "view", "--id", f"{by_path['file_id']}:2-end")
    assert same == tail

    code, _, err = _json(capsys, "view", "--path", "src/add.ts", "--chunks", "3-1")
    assert code == 2 and "invalid --chunks '3-1'" in err and "chunks count from 1" in err
    code, _, err = _json(capsys, "view", "--path", "src/nope.ts")
    assert code == 2 and "src/nope.ts is not indexed" in err
    code, _, err = _json(capsys, "view", "--id", f"{by_path['file_id']}:3-1")
    assert code == 2 and "invalid --id '3-1'" in err and "chunks count from 1" in err
    code, _, err = _json(capsys, "view", "--id", "xyz")
    assert code == 2 and "invalid --id 'xyz'" in err
