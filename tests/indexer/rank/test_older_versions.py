"""An older version's copy of the code beside the newer one (issue 34), on a real index: zod keeps
its v3 library in src/v3/ beside the v4 it develops, in the same words; a question about how it
works is about v4 unless it says v3."""

from __future__ import annotations

from typing import Any

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--explain", "--limit", "5")

# v3 says the question's words a little more often than v4 does: without the signal it ranks first.
V3 = """// Runs the refinement; a refinement that returns a promise cannot run in a synchronous parse.
export function refine(value: unknown, check: (v: unknown) => unknown): unknown {
  const result = check(value);
  if (result instanceof Promise) {
    throw new Error("Asynchronous refinement in synchronous parse: use parseAsync for a promise refinement");
  }
  return result;
}
"""
V4 = """// A check that returns a promise makes the parse asynchronous.
export function runCheck(value: unknown, check: (v: unknown) => unknown): unknown {
  const result = check(value);
  if (result instanceof Promise) {
    throw new Error("Encountered a promise during synchronous parse: use parseAsync");
  }
  return result;
}
"""


def _paths(found: Any) -> list[str]:
    return [r["relative_path"] for r in found["results"]]


def test_the_older_versions_copy_goes_below_the_newer_one_unless_named(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files({"package.json": '{"name": "acme"}', "src/v3/refine.ts": V3, "src/v4/checks.ts": V4})
    code, found, err = run_json(*SEARCH, "--text", "why does parse throw when my refinement returns a promise")
    assert code == 0, err
    order = _paths(found)
    assert order.index("src/v4/checks.ts") < order.index("src/v3/refine.ts"), order
    old = found["results"][order.index("src/v3/refine.ts")]
    assert [m["why"] for m in old["explain"]["signals"] if m["signal"] == "older"] == [
        "an older version's copy: v4 is beside it"
    ]
    for named in ("v3", "version 3", "Version 3"):  # spelled out too: "in the version 3 code"
        text = f"why does {named} parse throw when my refinement returns a promise"
        code, found, err = run_json(*SEARCH, "--text", text)
        assert code == 0, err
        assert _paths(found)[0] == "src/v3/refine.ts", (named, _paths(found))
        newer = found["results"][_paths(found).index("src/v4/checks.ts")]
        assert [m["why"] for m in newer["explain"]["signals"] if m["signal"] == "older"] == [
            "another version's copy: the query asks for v3"
        ]
