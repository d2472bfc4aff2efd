"""`monodex diff` after a one-line append (issue 35): the symbols of the file's chunks keep their
names, so the diff says which one changed and reports none removed."""

from __future__ import annotations

import json

from monodex.main import main

GIT_SERVICE_TS = """import * as child_process from 'child_process';

/** Runs git commands for the other services. */
export class GitService {
  private readonly _gitPath: string = 'git';

  /** Runs git with the arguments and returns what it printed, trimmed. */
  public executeGitCommandAndCaptureOutput(args: string[], workingDirectory?: string): string {
    const result: child_process.SpawnSyncReturns<string> = child_process.spawnSync(this._gitPath, args, {
      cwd: workingDirectory,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024
    });
    this._processResult(result);
    return result.stdout.toString().trim();
  }

  /** The branch checked out in the working directory, or undefined on a detached HEAD. */
  public getCurrentBranch(workingDirectory?: string): string | undefined {
    const branch: string = this.executeGitCommandAndCaptureOutput(
      ['branch', '--show-current'],
      workingDirectory
    );
    return branch.length > 0 ? branch : undefined;
  }

  /** Throws the error of a git run that failed, with what git printed on stderr. */
  private _processResult(result: child_process.SpawnSyncReturns<string>): void {
    if (result.error) {
      result.error.message += '\\n' + (result.stderr ? result.stderr.toString() + '\\n' : '');
      throw result.error;
    }
    if (result.status) {
      throw new Error(
        'The command failed with exit code ' + result.status + '\\n' + (result.stderr || '').toString()
      );
    }
  }
}
"""
PATH = "apps/lib/src/GitService.ts"


def test_a_line_appended_to_a_file_changes_its_last_symbol_and_removes_none(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"apps/lib/package.json": json.dumps({"name": "lib"}), PATH: GIT_SERVICE_TS}, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    assert run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")[0] == 0
    repo.git("checkout", "-q", "-b", "feature/append")
    repo.write(PATH, GIT_SERVICE_TS + "// one more line\n")
    repo.commit("append one line")
    code, _, err = run_json(
        "crawl", "--catalog", "acme", "--label", "feature/append", "--commit", "HEAD", "--json"
    )
    assert code == 0, err
    code, out, err = run_json(
        "diff", "--catalog", "acme", "--from", "main", "--to", "feature/append", "--json"
    )
    assert code == 0, err
    (changed,) = out["files"]
    assert [(s["symbol"], s["change"]) for s in changed["symbols"]] == [
        ("GitService._processResult", "changed")
    ]
