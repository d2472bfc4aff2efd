"""Scripts without a suffix: the `#!` line names the chunker (chunkers/shebang.py)."""

from __future__ import annotations

import dataclasses

import pytest
from monodex.indexer.chunkers import CHUNKERS, chunk_file, chunker_id, shebang
from monodex.indexer.chunkers.base import FileContext
from monodex.indexer.chunkers.suffixes import strategy_for


@pytest.mark.parametrize(
    ("line", "program", "strategy"),
    [
        ("#!/usr/bin/env python3", "python", "python"),
        ("#! /usr/bin/python3.11 -u", "python", "python"),
        ("#!/bin/sh -e", "sh", "bash"),
        ("#!/usr/bin/env bash", "bash", "bash"),
        ("#!/usr/bin/env zsh", "zsh", "bash"),
        ("#!/bin/sh\r", "sh", "bash"),  # a script committed with Windows line ends
        ("#!/usr/bin/env node", "node", "javascript"),
        ("#!/usr/bin/env -S deno run --allow-read", "deno", "typescript"),
        ("#!/usr/bin/env -S NODE_OPTIONS=--x node", "node", "javascript"),
        ("#!/usr/bin/env -S just --justfile", "just", "lineBased"),
        ("#!/usr/bin/perl -w", "perl", "lineBased"),
        ("#!", None, "lineBased"),
        ("LICENSE text", None, "lineBased"),
        ("  #!/bin/sh", None, "lineBased"),  # the kernel reads `#!` at the very start only
    ],
)
def test_the_first_line_names_the_program(line: str, program: str | None, strategy: str) -> None:
    text = line + "\necho hi\n"
    assert shebang.interpreter(text) == program
    assert shebang.strategy_of(text) == strategy


_PY = """#!/usr/bin/env python3
import sys


def run_benchmarks(names):
    for name in names:
        print(name)


class Suite:
    def collect(self):
        return []
"""


def test_a_python_script_is_chunked_as_python() -> None:
    ctx = FileContext("benchsuite/benchsuite", "ripgrep", 120)
    chunks = chunk_file("script", _PY, ctx)
    assert "".join(c.text for c in chunks) == _PY
    assert chunks == chunk_file("python", _PY, ctx)  # the python chunker's own output
    assert "run_benchmarks" in {c.symbol_name for c in chunks}
    assert shebang.script_lang(_PY) == "python"
    bash = "#!/bin/sh\nset -e\nbuild() {\n  cargo build\n}\nbuild\n"
    assert chunk_file("script", bash, ctx) == chunk_file("bash", bash, ctx)
    assert shebang.script_lang(bash) == "shell" and shebang.script_lang("#!/usr/bin/perl\n") == "text"


def test_a_delegates_version_is_part_of_the_script_chunker_id() -> None:
    """A new python chunker re-chunks Python scripts too: their identity names it."""
    script = CHUNKERS["script"]
    assert isinstance(script, shebang.ScriptChunker)
    assert f"python={CHUNKERS['python'].version}" in chunker_id("script", 802)
    newer = dataclasses.replace(CHUNKERS["python"], version="v99")  # type: ignore[type-var]
    bumped = shebang.ScriptChunker({**script.delegates, "python": newer})
    assert bumped.version != script.version and "python=v99" in bumped.version


def test_monodex_chunk_reads_the_first_line_of_a_name_without_a_dot() -> None:
    assert strategy_for("benchsuite", _PY) == "script"
    assert strategy_for("LICENSE", "Copyright\n") == "lineBased"
    assert strategy_for("run.py", _PY) == "python"
    assert strategy_for(".envrc", "#!/bin/sh\n") == "lineBased"  # a dotfile is no script


def test_a_git_hook_without_its_first_line_is_a_shell_script() -> None:
    """husky writes `.husky/commit-msg` as bare commands: the hook's name says it is shell."""
    hook = 'pnpm commitlint --edit "$1"\nrun_checks() {\n  pnpm lint\n}\n'
    assert shebang.strategy_of(hook, ".husky/commit-msg") == "bash"
    assert shebang.strategy_of(hook, "docs/commit-msg.txt") == "lineBased"
    assert shebang.strategy_of(hook, "tools/update") == "lineBased"  # too common a name
    ctx = FileContext(".husky/commit-msg", "", 802)
    assert chunk_file("script", hook, ctx) == chunk_file("bash", hook, ctx)
    assert shebang.script_lang(hook, ".husky/pre-push") == "shell"
    assert strategy_for("pre-commit", "npx lint-staged\n") == "script"
