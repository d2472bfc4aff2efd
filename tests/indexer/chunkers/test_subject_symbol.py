"""A chunk of top-level statements is named by the one declaration it holds (issue 35): the first
function merged with the imports (Go `Alpha`, Python `alpha`), a class's last methods followed by
a re-export (sparo's TerminalService.ts) or by a comment appended to the file (GitService.ts)."""

from __future__ import annotations

import pytest
from monodex.indexer.chunkers import chunk_file
from monodex.indexer.chunkers.base import Chunk, FileContext

GO = """package main

import (
\t"fmt"
\t"os"
)

// Alpha prints a greeting and leaves.
func Alpha() {
\tfmt.Println("alpha")
\tos.Exit(0)
}

func Beta() int {
\ttotal := 0
\tfor i := 0; i < 10; i++ {
\t\ttotal += i
\t}
\treturn total
}
"""
PYTHON = '''"""Helpers."""
import os
import sys


def alpha():
    print(os.getcwd())
    return sys.argv


def beta():
    total = 0
    for i in range(10):
        total += i
    return total
'''
TYPESCRIPT = """import { readFileSync } from 'fs';
import * as path from 'path';

export function alpha(folder: string): string {
  return readFileSync(path.join(folder, 'a.txt'), 'utf8');
}

export function beta(): number {
  let total: number = 0;
  for (let i: number = 0; i < 10; i++) {
    total += i;
  }
  return total;
}
"""
# (strategy, path, text, budget): a budget that merges the imports with the first declaration only
FIRST = [
    ("go", "cmd/a.go", GO, 150),
    ("python", "pkg/a.py", PYTHON, 120),
    ("typescript", "src/a.ts", TYPESCRIPT, 200),
]


def _chunks(strategy: str, path: str, text: str, budget: int) -> list[Chunk]:
    return chunk_file(strategy, text, FileContext(path, "pkg", budget))


@pytest.mark.parametrize(("strategy", "path", "text", "budget"), FIRST)
def test_the_first_declaration_after_the_imports_keeps_its_name(
    strategy: str, path: str, text: str, budget: int
) -> None:
    first, second = _chunks(strategy, path, text, budget)
    assert first.start_line == 1 and "import" in first.text  # merged with the imports
    assert (first.symbol_name, first.chunk_type) == ({"go": "Alpha"}.get(strategy, "alpha"), "function")
    assert first.breadcrumb == f"pkg:{path.rsplit('/', 1)[1]}:{first.symbol_name}"
    assert second.symbol_name in ("Beta", "beta")


def test_two_declarations_with_the_imports_name_neither() -> None:
    (whole,) = _chunks("typescript", "src/a.ts", TYPESCRIPT, 6000)
    assert (whole.symbol_name, whole.chunk_type, whole.breadcrumb) == (None, "code", "pkg:a.ts")


SERVICE = """import { Terminal } from './Terminal';

export class TerminalService {
  private _terminal: Terminal = new Terminal();
  private _width: number = 80;

  public writeTaskHeader(name: string): void {
    const left: string = '---[ ' + name + ' ';
    const rest: number = Math.max(this._width - left.length - 1, 0);
    this._terminal.writeLine(left + ']' + '-'.repeat(rest));
    this._terminal.writeLine();
  }

  public writeTaskFooter(): void {
    this._terminal.writeLine('-'.repeat(this._width));
    this._terminal.writeLine();
  }

  public get isDebug(): boolean {
    return this._terminal.debugEnabled;
  }
}
"""


@pytest.mark.parametrize("tail", ["\nexport type { Terminal };\n", "// one more line\n"])
def test_a_class_s_last_chunk_keeps_its_name_with_a_statement_after_the_class(tail: str) -> None:
    before = _chunks("typescript", "src/TerminalService.ts", SERVICE, 300)
    after = _chunks("typescript", "src/TerminalService.ts", SERVICE + tail, 300)
    assert len(after) == len(before) >= 3 and after[-1].end_line > before[-1].end_line
    assert after[-1].symbol_name == before[-1].symbol_name
    assert after[-1].symbol_name == "TerminalService"
