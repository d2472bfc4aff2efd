"""A question asks where code is: a test, example or benchmark it does not ask for goes after every
source file the search found, not only twenty files down (issue 34: of 975 such files in the first
ten of the hand-written questions, one was an answer). A change request's tests are answers as
often as weak source files, so there they keep the twenty-file rule. End to end on a real index."""

from __future__ import annotations

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--limit", "30")

RETRY = """export function retryDelay(attempt: number): number {
  // exponential backoff: the delay doubles with each attempt, capped at thirty seconds
  return Math.min(30_000, 100 * 2 ** attempt);
}
"""
# The test says every word of the question, and more often than the code does.
TEST = """import { retryDelay } from "../src/retry";
// how is the retry delay computed: the retry delay doubles, the retry delay is capped
test("retry delay computed for each attempt", () => {
  expect(retryDelay(1)).toBe(200); // retry delay computed
  expect(retryDelay(20)).toBe(30_000); // retry delay capped
});
"""


def _repo() -> dict[str, str]:
    files = {"src/retry.ts": RETRY, "test/retry.test.ts": TEST}
    for i in range(24):  # source files the question reaches only weakly: one word each
        files[f"src/step{i:02}.ts"] = f"export function step{i}(delay: number): number {{\n  return delay + {i};\n}}\n"
    return files


def _order(run_json, text: str) -> list[str]:  # type: ignore[no-untyped-def]
    code, found, err = run_json(*SEARCH, "--text", text)
    assert code == 0, err
    return [r["relative_path"] for r in found["results"]]


def test_a_question_lists_the_test_after_every_source_file(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_repo())
    paths = _order(run_json, "how is the retry delay computed")
    sources = [p for p in paths if p.startswith("src/")]
    assert paths[0] == "src/retry.ts", paths
    assert len(sources) == 25, paths  # every source file is a candidate in so small a repository
    assert paths.index("test/retry.test.ts") > max(paths.index(p) for p in sources), paths


def test_a_change_request_keeps_its_test_twenty_files_down(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_repo())
    paths = _order(run_json, "Fix retry delay computed for each attempt")
    sources = [p for p in paths if p.startswith("src/")]
    assert len(sources) == 25, paths
    # a change's tests change with it: the test is listed before the weakest source files
    assert paths.index("test/retry.test.ts") < max(paths.index(p) for p in sources), paths


def test_a_question_asking_for_tests_keeps_them_in_place(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_repo())
    paths = _order(run_json, "which tests check the retry delay")
    assert paths.index("test/retry.test.ts") < 3, paths
