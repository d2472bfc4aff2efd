"""Realistic TypeScript sources, generated here (10-30 KB each) rather than copied from a repository."""

from __future__ import annotations

from collections.abc import Callable

import pytest

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
