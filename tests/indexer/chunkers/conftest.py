"""Realistic TypeScript sources, generated here (10-30 KB each) rather than copied from a repository."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from monodex.indexer.chunkers.base import CHUNK_KINDS, Chunk
from monodex.indexer.chunkers.lines import split_lines

_WORDS = "path file folder project package config schema option value entry record result".split()


def _word(i: int) -> str:
    return _WORDS[i % len(_WORDS)]


def _doc(summary: str, *, params: tuple[str, ...] = (), returns: str = "") -> str:
    lines = [
        "/**",
        f" * {summary}",
        " *",
        " * @remarks",
        f" * This is part of the {summary.lower()} contract;",
    ]
    lines.append(" * callers should not rely on the order of the results.")
    lines += [f" * @param {p} - the {p} to use" for p in params]
    if returns:
        lines.append(f" * @returns {returns}")
    return "\n".join(lines + [" */"])


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + ln if ln else ln for ln in text.split("\n"))


def json_file_ts(methods: int = 24) -> str:
    """A library file: imports, an options interface, an enum, a class of static methods."""
    out = [
        "// Copyright (c) Example Corp. All rights reserved. Licensed under the MIT license.",
        "",
        "import * as os from 'os';",
        "import * as jju from 'jju';",
        "import { type JsonSchema, type IJsonSchemaErrorInfo } from './JsonSchema';",
        "import { Text, type NewlineKind } from './Text';",
        "import { FileSystem } from './FileSystem';",
        "",
        _doc("Options for saving a JSON file"),
        "export interface IJsonFileSaveOptions {",
    ]
    for i in range(14):
        out += [
            _indent(_doc(f"Controls the {_word(i)} behaviour number {i}"), 2),
            f"  {_word(i)}Option{i}?: boolean;",
        ]
    out += ["}", "", "export enum JsonSyntax {"]
    out += [f"  /** Syntax {i}. */\n  Syntax{i} = 'syntax-{i}'," for i in range(8)]
    out += ["}", "", _doc("Utilities for reading and writing JSON files"), "export class JsonFile {"]
    out += [
        "  private static _counter: number = 0;",
        "  public static readonly allowedKeys: Set<string> = new Set();",
        "",
    ]
    for m in range(methods):
        w = _word(m)
        out += [
            _indent(
                _doc(f"Loads the {w} number {m}", params=("jsonFilename", "options"), returns="the object"), 2
            ),
            f"  public static load{w.title()}{m}(jsonFilename: string, options?: IJsonFileSaveOptions): unknown {{",
            "    try {",
            f"      const contents: string = FileSystem.readFile(jsonFilename + '.{w}');",
            "      const parsed: unknown = jju.parse(contents, { mode: 'cjson' });",
            "      if (options && Object.keys(options).length > 0) {",
            f"        JsonFile._counter += {m};",
            "      }",
            "      return parsed;",
            "    } catch (error) {",
            "      if (FileSystem.isNotExistError(error as Error)) {",
            "        throw error;",
            "      }",
            f'      throw new Error(`Error reading "${{jsonFilename}}" ({w}):` + os.EOL + (error as Error).message);',
            "    }",
            "  }",
            "",
        ]
    out += [
        "  private static _formatPath(path: string[]): string {",
        "    let result: string = '';",
        "    for (const part of path) {",
        "      switch (typeof part) {",
        "        case 'number':",
        "          result += `[${part}]`;",
        "          break;",
        "        default:",
        "          result += '.' + part;",
        "      }",
        "    }",
        "    return result;",
        "  }",
        "}",
        "",
    ]
    return "\n".join(out)


def watcher_ts(handlers: int = 30) -> str:
    """Nested callbacks, a namespace, a big object literal of handlers, a long function."""
    out = [
        "import * as fs from 'fs';",
        "import * as path from 'path';",
        "import { Async } from './Async';",
        "",
        "export namespace WatcherDefaults {",
        "  export const debounceMs: number = 100;",
        "  export function describe(folder: string): string {",
        "    return `watching ${folder}`;",
        "  }",
        "}",
        "",
        "export const eventHandlers = {",
    ]
    for i in range(handlers):
        w = _word(i)
        out += [
            f"  /** Called when a {w} changes. */",
            f"  on{w.title()}Changed{i}: async (changedPath: string, stats: fs.Stats): Promise<void> => {{",
            "    const relative: string = path.relative(process.cwd(), changedPath);",
            f"    if (stats.size > {i * 100}) {{",
            f"      await Async.forEachAsync([relative], async (item) => {{ console.log('{w}', item); }});",
            "    }",
            f"    console.log(`{w} changed: ${{relative}} (${{stats.mtimeMs}})`);",
            "  },",
        ]
    out += ["};", "", "export async function watchProjectsAsync(folders: string[]): Promise<void> {"]
    for i in range(handlers):
        out += [
            f"  const watcher{i}: fs.FSWatcher = fs.watch(folders[{i % 5}], (event, fileName) => {{",
            "    if (!fileName) {",
            "      return;",
            "    }",
            f"    void eventHandlers.on{_word(i).title()}Changed{i}(path.join(folders[{i % 5}], fileName), fs.statSync(fileName));",
            "  });",
            f"  watcher{i}.on('error', (error: Error) => console.error(error));",
            "",
        ]
    out += ["}", ""]
    return "\n".join(out)


def parameter_form_tsx(fields: int = 24) -> str:
    """A React component: hooks, callbacks and a long JSX tree."""
    out = [
        "import * as React from 'react';",
        "import { TextField, Checkbox } from './controls';",
        "",
        "export interface IParameterFormProps {",
        "  /** The parameters to render, keyed by long name. */",
        "  parameters: Map<string, string>;",
        "  onChange: (name: string, value: string) => void;",
        "}",
        "",
        "export const ParameterForm = ({ parameters, onChange }: IParameterFormProps): JSX.Element => {",
        "  const [filter, setFilter] = React.useState<string>('');",
        "  const visible = React.useMemo(() => [...parameters.keys()].filter((k) => k.includes(filter)), [parameters, filter]);",
        "",
        "  return (",
        '    <div className="parameter-form">',
        '      <TextField label="Filter" value={filter} onChange={(e) => setFilter(e.target.value)} />',
    ]
    for i in range(fields):
        w = _word(i)
        out += [
            f'      <section key="{w}-{i}" className="field field-{w}">',
            f"        <h3>{w.title()} parameter {i}</h3>",
            "        <TextField",
            f'          label="--{w}-{i}"',
            f"          value={{parameters.get('--{w}-{i}') ?? ''}}",
            f"          onChange={{(e) => onChange('--{w}-{i}', e.target.value)}}",
            "        />",
            f"        <Checkbox checked={{visible.includes('--{w}-{i}')}} onChange={{() => onChange('--{w}-{i}', '')}} />",
            "      </section>",
        ]
    out += ["    </div>", "  );", "};", ""]
    return "\n".join(out)


@pytest.fixture(scope="session")
def ts_sources() -> dict[str, str]:
    return {
        "JsonFile.ts": json_file_ts(),
        "ProjectWatcher.ts": watcher_ts(),
        "ParameterForm.tsx": parameter_form_tsx(),
    }


@pytest.fixture(scope="session")
def make_json_file() -> Callable[[int], str]:
    return json_file_ts


# Hostile files (issue 12): deep nesting, one huge line, long lines with CRLF and multi-byte text.
# Each is (strategy, repo-relative path, text); bench/hostile.py chunks the same files and times them.


def _lines(*parts: str) -> str:
    return "\n".join(parts) + "\n"


def nested(opener: str, body: str, closer: str, depth: int, *, head: str, tail: str) -> str:
    """`depth` levels of nesting, one level a line: the shape that made chunking quadratic."""
    return _lines(head, *[opener] * depth, body, *[closer] * depth, tail)


def nested_ifs(depth: int) -> str:
    return nested("if (a > k) {", "a++;", "}", depth, head="function f(a: number, k: number) {", tail="}")


def minified(size: int) -> str:
    """One line of `size` bytes or a little more, like a bundler's output."""
    unit = "var a{0}=function(b,c){{return b+c*{0}}};".format
    parts, total, i = [], 0, 0
    while total < size:
        parts.append(unit(i))
        total, i = total + len(parts[-1]), i + 1
    return "".join(parts)


def long_mixed_lines(repeat: int) -> str:
    """Long lines of 1-4 byte characters, CRLF and LF, short lines between them."""
    wide = "é€𝄞x" * 300  # 3,000 bytes a line: a budget of 802 cuts it into pieces
    parts = [f"// {i}\r\n{wide}\r\nconst v{i} = '{wide}';\n\r\n{'€' * 1000}\n" for i in range(repeat)]
    return "".join(parts) + "ünterminated last line " + "𝄞" * 500


def hostile_files(scale: float = 1.0) -> dict[str, tuple[str, str, str]]:
    """name -> (strategy, path, text). Sizes as in issue 12 (nesting 20,000 and 40,000 levels deep,
    a 5 MB bundle: the 1 MiB policy limit raised, a 1 MB markdown line); `scale` shrinks them all."""

    def n(count: int) -> int:
        return max(1, int(count * scale))

    def deep(opener: str, body: str, closer: str, head: str, tail: str) -> str:
        return nested(opener, body, closer, n(20_000), head=head, tail=tail)

    return {
        "nested-if-40000": ("typescript", "src/deep.ts", nested_ifs(n(40_000))),
        "nested-if-20000": ("typescript", "src/deep.ts", nested_ifs(n(20_000))),
        "nested-arrays": ("typescript", "src/a.ts", deep("[", "1", "]", "export const a =", ";")),
        "nested-objects": ("typescript", "src/o.ts", deep("{ a:", "1", "}", "export const o =", ";")),
        "nested-parens": ("typescript", "src/p.ts", deep("(", "1", ")", "export const p =", ";")),
        "nested-templates": ("typescript", "src/t.ts", deep("`${", "1", "}`", "export const t =", ";")),
        "nested-jsx": (
            "typescript",
            "src/App.tsx",
            deep("<div>", "x", "</div>", "export const App = () => (", ");"),
        ),
        "minified-5mb": ("typescript", "dist/bundle.min.js", minified(n(5_000_000))),
        "markdown-1mb-line": (
            "markdown",
            "docs/big.md",
            "# Data\n\nIntro.\n\n" + "word " * n(200_000) + "\n\n## Next\n",
        ),
        "markdown-1mb-heading": ("markdown", "docs/h.md", "# a" + " " * n(1_000_000) + "b #\n\ntext\n"),
        "long-lines-ts": ("typescript", "src/long.ts", long_mixed_lines(n(40))),
        "long-lines-md": ("markdown", "docs/long.md", long_mixed_lines(n(40))),
        "long-lines-text": ("lineBased", "data/long.txt", long_mixed_lines(n(40))),
    }


@pytest.fixture(scope="session")
def hostile() -> dict[str, tuple[str, str, str]]:
    return hostile_files()


def _bytes(c: Chunk) -> int:
    return len(c.text.encode("utf-8", "surrogatepass"))


def assert_tiles(text: str, chunks: list[Chunk], budget: int) -> None:
    """The tiling rule: joined, the chunks are the text; none exceeds the budget; each starts on
    the line where the one before ended, or the next line when that one ended with its newline
    (a line longer than the budget is cut into pieces that share its line number, never inside
    a character or a CRLF). A whitespace-only chunk only where no neighbour had room for it, or
    as a piece of a cut line."""
    assert "".join(c.text for c in chunks) == text
    line = 1
    for i, c in enumerate(chunks):
        assert _bytes(c) <= budget, (i, c.start_line, _bytes(c))
        assert c.start_line == line and c.end_line - c.start_line + 1 == len(split_lines(c.text))
        assert c.chunk_kind in CHUNK_KINDS
        nxt = chunks[i + 1] if i + 1 < len(chunks) else None
        assert not (c.text.endswith("\r") and nxt is not None and nxt.text.startswith("\n")), "CRLF cut"
        if not c.text.strip():
            prev = chunks[i - 1] if i else None
            piece = (prev is not None and not prev.text.endswith("\n")) or not c.text.endswith("\n")
            no_room = all(n is None or _bytes(n) + _bytes(c) > budget for n in (prev, nxt))
            assert piece or no_room, f"whitespace-only chunk {i} had a neighbour with room"
        line = c.end_line + (1 if c.text.endswith("\n") else 0)
    assert not chunks or chunks[-1].end_line == len(split_lines(text))


@pytest.fixture(scope="session")
def tiles() -> Callable[[str, list[Chunk], int], None]:
    return assert_tiles
