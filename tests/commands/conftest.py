from __future__ import annotations

import json

import pytest

from monodex.main import main

SERVICE_TS = """import { readFileSync } from 'fs';
import * as path from 'path';

/** Loads and validates the JSON configuration file of a project. */
export class ConfigLoader {
  private readonly _folder: string;

  public constructor(folder: string) {
    this._folder = folder;
  }

  /** Reads config.json from the project folder and parses it. */
  public load(): Record<string, unknown> {
    const text: string = readFileSync(path.join(this._folder, 'config.json'), 'utf8');
    return JSON.parse(text);
  }
}
"""

RETRY_TS = """/** Retries an asynchronous HTTP request with exponential backoff. */
export async function fetchWithRetry(url: string, attempts: number = 3): Promise<Response> {
  let delayMs: number = 100;
  for (let i: number = 0; i < attempts; i++) {
    try {
      return await fetch(url);
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs *= 2;
    }
  }
  throw new Error(`Request to ${url} failed after ${attempts} attempts`);
}
"""

COLORS_TS = """export enum Color {
  Red = 'red',
  Green = 'green',
  Blue = 'blue'
}

/** Wraps text in ANSI escape codes so a terminal prints it in color. */
export function colorize(text: string, color: Color): string {
  const codes: Record<Color, number> = { [Color.Red]: 31, [Color.Green]: 32, [Color.Blue]: 34 };
  return `\\u001b[${codes[color]}m${text}\\u001b[39m`;
}
"""

README_MD = """# Tools

Helpers shared by the apps of this monorepo.

## Installing

Run `rush install` at the root of the repository.

## Colors

The `colorize` function prints colored terminal output.
"""

MONOREPO: dict[str, str | bytes] = {
    "package.json": json.dumps({"name": "root-workspace"}),
    "rush.json": "{}",
    "libraries/config/package.json": json.dumps({"name": "@acme/config"}),
    "libraries/config/src/ConfigLoader.ts": SERVICE_TS,
    "libraries/net/package.json": json.dumps({"name": "@acme/net"}),
    "libraries/net/src/retry.ts": RETRY_TS,
    "libraries/terminal/package.json": json.dumps({"name": "@acme/terminal"}),
    "libraries/terminal/src/colors.ts": COLORS_TS,
    "libraries/terminal/node_modules/dep/index.ts": "export const dep = 1;\n",
    "README.md": README_MD,
}


@pytest.fixture
def monorepo(git_repo):  # type: ignore[no-untyped-def]
    repo = git_repo(MONOREPO, name="acme")
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    return repo


@pytest.fixture
def crawled(monorepo, run_json):  # type: ignore[no-untyped-def]
    """The monorepo (catalog `acme`) with its HEAD crawled into label `main`."""
    code, _, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--json")
    assert code == 0, err
    return monorepo


@pytest.fixture
def lifted(run_json):  # type: ignore[no-untyped-def]
    """lifted(text, giver, taker): the fused score of `giver` and the signals that moved `taker`
    (by signal) in an explained search of label `main` of catalog `acme`."""

    def ask(text: str, giver: str, taker: str) -> tuple[float, dict[str, dict[str, object]]]:
        code, found, err = run_json(
            "search",
            "--catalog",
            "acme",
            "--label",
            "main",
            "--json",
            "--explain",
            "--text",
            text,
            "--limit",
            "20",
        )
        assert code == 0, err
        by_path = {r["relative_path"]: r for r in found["results"]}
        moved = by_path[taker]["explain"]["signals"]
        return by_path[giver]["explain"]["fused_score"], {m["signal"]: m for m in moved}

    return ask
