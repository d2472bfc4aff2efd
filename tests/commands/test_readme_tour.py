"""The README's tour, run as a newcomer runs it: every `monodex` line of its bash blocks, in order,
against a small repository laid out as the tour says (at ~/src/rushstack), from its checkout."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from monodex.main import main
from tests.test_docs import README, TOUR, command_lines

JSON_FILE = """/** Reads and writes JSON files, comments allowed (JSON with comments, as tsconfig uses). */
export class JsonFile {
  /** Loads a JSON file, stripping its comments before it is parsed. */
  public static load(path: string): unknown {
    return JSON.parse(JsonFile.stripComments(readText(path)));
  }

  /** Removes // and /* */ comments that are not inside a string. */
  public static stripComments(text: string): string {
    let out: string = '';
    let inString: boolean = false;
    for (let i: number = 0; i < text.length; i++) {
      const c: string = text[i];
      if (c === '"' && text[i - 1] !== '\\\\') {
        inString = !inString;
      }
      if (!inString && c === '/' && text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\\n') {
          i++;
        }
      }
      out += text[i] ?? '';
    }
    return out;
  }

  /** Saves an object as a JSON file with two-space indentation and a final newline. */
  public static save(value: unknown, path: string): void {
    writeText(path, JSON.stringify(value, undefined, 2) + '\\n');
  }
}

declare function readText(path: string): string;
declare function writeText(path: string, text: string): void;
"""

RETRY = """/** Retries an HTTP request with exponential backoff until it succeeds or attempts run out. */
export async function fetchWithRetry(url: string, attempts: number = 3): Promise<Response> {
  let delayMs: number = 100;
  for (let i: number = 0; i < attempts; i++) {
    try {
      return await fetch(url);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs *= 2;
    }
  }
  throw new Error(`Request to ${url} failed after ${attempts} attempts`);
}
"""


def _rushstack(git_repo):  # type: ignore[no-untyped-def]
    """main with a short history of pull requests (questions for `eval`) and a release branch."""
    repo = git_repo({"package.json": '{"name": "rushstack"}\n', "rush.json": "{}\n"}, name="rushstack")
    lib = "libraries/node-core-library"
    repo.write(f"{lib}/package.json", '{"name": "@rushstack/node-core-library"}\n')
    repo.write(f"{lib}/src/JsonFile.ts", JSON_FILE)
    repo.commit("Add JsonFile to read JSON files with comments (#1)")
    repo.write("libraries/rush-lib/package.json", '{"name": "@microsoft/rush-lib"}\n')
    repo.write("libraries/rush-lib/src/fetchWithRetry.ts", RETRY)
    repo.commit("Retry failed HTTP requests with exponential backoff (#2)")
    repo.git("branch", "release/5.2")
    repo.write(f"{lib}/src/JsonFile.ts", JSON_FILE.replace("two-space", "four-space").replace(", 2)", ", 4)"))
    repo.commit("Save JSON files with four spaces of indentation (#3)")
    repo.git("checkout", "-q", "release/5.2")
    repo.write("libraries/rush-lib/src/fetchWithRetry.ts", RETRY.replace("*= 2", "*= 3"))
    repo.commit("Back off faster between retries (#4)")
    repo.git("checkout", "-q", "main")
    home = Path.home() / "src"
    home.mkdir(parents=True)
    (home / "rushstack").symlink_to(repo.path)  # where the tour says the repository is
    return repo


def test_the_readme_tour_runs_line_by_line(git_repo, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    repo = _rushstack(git_repo)
    monkeypatch.chdir(repo.path)  # the tour's commands are run standing in the checkout
    lines = command_lines(TOUR)
    assert len(lines) >= 16 and lines == command_lines(README)  # the tour holds every command line
    for line in lines:
        argv = [os.path.expanduser(a) for a in shlex.split(line, comments=True)[1:]]
        if argv[0] == "diff":  # a runner would have labelled the release branch; none runs here
            assert main(["crawl", "--branch", "release/5.2", "--commit", "release/5.2"]) == 0
        if "--against" in argv:  # the run it is compared with, saved as the line's comment says
            capsys.readouterr()
            assert main(["eval", "--json", "--per-query"]) == 0
            Path(argv[argv.index("--against") + 1]).write_text(capsys.readouterr().out)
        capsys.readouterr()
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, f"{line}\n{err}"
        if "--json" in argv:
            json.loads(out)
        if argv[:2] == ["search", "parse a JSON file with comments"]:
            first = next(hit for hit in out.splitlines() if hit and not hit.startswith("#"))
            assert first.startswith("libraries/node-core-library/src/JsonFile.ts:"), out
        if argv[0] == "diff":
            assert "libraries/rush-lib/src/fetchWithRetry.ts" in out and "JsonFile.ts" in out, out
