"""A hit names its file's next best matching parts (issue 34): a third of the answer files our
hand-written questions find were listed by a part of them that is not the answer, and the
answer was most often the file's second or third part."""

from __future__ import annotations

TEXT = ("search", "--catalog", "acme", "--label", "main")
SEARCH = (*TEXT, "--json")
QUESTION = "how are failed requests retried with exponential backoff"

# One module whose backoff logic is spread over three functions, and unrelated files beside it.
RETRY = """/** Retries of failed requests. */
import { sleep } from "./sleep";

/** The delay before the next retry: exponential backoff with jitter, capped. */
export function backoffDelay(attempt: number): number {
  const base = 100 * 2 ** attempt;
  return Math.min(base + Math.random() * base, 30_000);
}

/** Whether a failed request is retried: network errors and 5xx responses, a few attempts. */
export function shouldRetry(status: number, attempt: number): boolean {
  return attempt < 5 && (status === 0 || status >= 500);
}

/** Sends the request, retrying with exponential backoff until it succeeds or gives up. */
export async function fetchWithRetry(url: string): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(url);
    if (!shouldRetry(response.status, attempt)) {
      return response;
    }
    await sleep(backoffDelay(attempt));
  }
}
"""


def _files() -> dict[str, str]:
    files = {
        "src/retry.ts": RETRY,
        "src/sleep.ts": "export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));\n",
    }
    files |= {
        f"src/page{n}.ts": f"export function renderPage{n}(title: string): string {{\n  return `<h1>${{title}}</h1>`;\n}}\n"
        for n in range(6)
    }
    return files


def test_a_hit_names_its_files_next_best_parts(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_files())
    code, found, err = run_json(*SEARCH, "--text", QUESTION)
    assert code == 0, err
    first = found["results"][0]
    assert first["relative_path"] == "src/retry.ts", [r["relative_path"] for r in found["results"]]
    more = first["more_in_file"]
    assert 1 <= len(more) <= 2
    # other parts of the same file, not the one listed, best first, each at half its score or more
    listed = (first["start_line"], first["end_line"])
    assert all((p["start_line"], p["end_line"]) != listed for p in more)
    assert all(first["score"] * 0.5 <= p["score"] for p in more)
    assert [p["score"] for p in more] == sorted((p["score"] for p in more), reverse=True)
    names = {p["symbol_name"] for p in more} | {first["symbol_name"]}
    assert names & {"backoffDelay", "shouldRetry", "fetchWithRetry"}
    # the text output says where to read next
    code, text, err = run_json(*TEXT, "--text", QUESTION)
    assert code == 0, err
    assert f"more in this file: {more[0]['start_line']}-{more[0]['end_line']}" in text
    # a part listed as a hit of its own (--per-file 2) is not named again
    code, two, err = run_json(*SEARCH, "--per-file", "2", "--text", QUESTION)
    assert code == 0, err
    hits = [
        (r["relative_path"], r["start_line"]) for r in two["results"] if r["relative_path"] == "src/retry.ts"
    ]
    named = [(r["relative_path"], p["start_line"]) for r in two["results"] for p in r.get("more_in_file", [])]
    assert len(hits) == 2 and not set(hits) & set(named)
