"""Two words a question puts side by side are one name in the code (issue 34): "error handler"
finds the file that has `errorHandler`, before files that say "error" and "handler" apart more
often, end to end on a real index."""

from __future__ import annotations

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--mode", "lexical")

DISPATCH = """import { Route } from './route';

export function dispatch(route: Route, req: Request): Response {
  try {
    return route.run(req);
  } catch (e) {
    return errorHandler(e);
  }
}

function errorHandler(e: unknown): Response {
  return new Response(String(e), { status: 500 });
}
"""
# says both words, apart, many times: by the words alone it is the better match
LOGGING = """// Each handler logs an error once; a handler that sees the same error twice logs it again.
export function logError(handler: string, error: Error): void {
  console.log(handler, error.message);  // the handler name, then the error
}

export function warnHandler(handler: string, error: Error): void {
  console.warn(`handler ${handler} saw error ${error.name}`);
}
"""


def test_adjacent_words_find_the_name_they_make(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    files = {"src/dispatch.ts": DISPATCH, "src/logging.ts": LOGGING}
    files |= {f"src/route{n}.ts": f"export const route{n} = (req: Request) => new Response('{n}');\n" for n in range(8)}
    crawl_files(files)
    code, found, err = run_json(*SEARCH, "--text", "where is the error handler", "--limit", "3")
    assert code == 0, err
    ranked = [r["relative_path"] for r in found["results"]]
    assert ranked[0] == "src/dispatch.ts", ranked
