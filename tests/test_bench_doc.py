"""bench/eval/build_doc.py: which doc comments become sanity queries, on a small real repository."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from monodex.indexer.policy import crawlpolicy


@pytest.fixture
def build_doc(bench_script: Callable[[str], ModuleType]) -> ModuleType:
    return bench_script("eval/build_doc.py")


PART = {
    "version": 1,
    "fileTypes": {".ts": "typescript", ".tsx": "typescript", ".md": "markdown"},
    "patternsToExclude": ["**/*.d.ts", "lib/", "node_modules/"],
    "patternsToKeep": [],
}

LOCK = """\
// Copyright (c) Example Corp. All rights reserved. Licensed under the MIT license.

/**
 * A cross-process lock that detects a crashed owner by its start time.
 *
 * @remarks Longer text that is not part of the first sentence.
 */
export class LockFile {
  /**
   * Acquires the lock, waiting until the {@link LockFile.release | current owner releases it}.
   * Then it returns.
   */
  public static acquireAsync(name: string): Promise<LockFile> {
    return null!;
  }

  /** Releases the lock so that other processes can take it. */
  private _releaseInternal(): void {}

  /** Reads the `pid` of the process e.g. the one that holds the lock file now. */
  get ownerPid(): number { return 1; }
}

/**
 * @param stat - the contents of a proc stat file, and nothing else written before it
 */
export function parseProcStat(stat: string): string { return stat; }

/** TODO: make this configurable through the environment later on */
export const retryCount: number = 3;

/** eslint-disable-next-line no-bitwise because the flags are packed together */
export const flags: number = 1 | 2;

/** Too short to ask. */
export function tiny(): void {}

/** {@inheritDoc LockFile.acquireAsync} */
export function acquire(): void {}

/** A helper that nobody outside this module can import at all. */
function notExported(): void {}

/* A plain block comment is no doc comment, however long it is. */
export function plainComment(): void {}

/** A comment separated from its declaration by a blank line is no doc comment. */

export function separated(): void {}

/**
 * The options for {@link @example/core#FileSystem.readFolder} and `Text.split`, see [the guide](https://x.y).
 */
export interface IReadOptions {
  /** Returns the folder that the read should start from. */
  folder(): string;
}

export namespace Paths {
  /** Joins the segments of a path with forward slashes only. */
  export function join(...segments: string[]): string { return segments.join('/'); }
}
"""

DOCUMENTED = (
    "/** Computes the checksum of a file in the store index. */\nexport function checksum(): void {}\n"
)


def test_the_first_sentences_of_exported_declarations_are_the_queries(build_doc, git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(
        {
            "libs/core/src/LockFile.ts": LOCK,
            "libs/store/src/checksum.ts": DOCUMENTED,
            "libs/store2/src/checksum.ts": DOCUMENTED,  # the same sentence: one query, both files
            # Excluded: tests, test helpers, declaration files, what the crawl drops, outside the prefix.
            "libs/core/src/LockFile.test.ts": DOCUMENTED.replace("checksum", "inTest"),
            "libs/core/src/test/helpers.ts": DOCUMENTED.replace("checksum", "inTestFolder"),
            "libs/core/src/types.d.ts": DOCUMENTED.replace("checksum", "declared"),
            "libs/core/lib/LockFile.ts": DOCUMENTED.replace("checksum", "built"),
            "other/src/outside.ts": "/** Something that lies outside of the prefix folder. */\nexport const x = 1;\n",
            "libs/core/README.md": "/** Markdown is not TypeScript at all, however it looks. */\n",
        }
    )
    policy = crawlpolicy.parse(PART, "test")
    queries = build_doc.build(str(repo.path), repo.head(), policy, "libs/", 100)
    got = {q["id"]: (q["query"], q["relevant"]) for q in queries}
    lock = ["libs/core/src/LockFile.ts"]
    assert got == {
        "doc:libs/core/src/LockFile.ts#LockFile": (
            "A cross-process lock that detects a crashed owner by its start time.",
            lock,
        ),
        "doc:libs/core/src/LockFile.ts#LockFile.acquireAsync": (
            "Acquires the lock, waiting until the current owner releases it.",
            lock,
        ),
        "doc:libs/core/src/LockFile.ts#LockFile.ownerPid": (
            "Reads the pid of the process e.g. the one that holds the lock file now.",
            lock,
        ),
        "doc:libs/core/src/LockFile.ts#IReadOptions": (
            "The options for FileSystem.readFolder and Text.split, see the guide.",
            lock,
        ),
        "doc:libs/core/src/LockFile.ts#IReadOptions.folder": (
            "Returns the folder that the read should start from.",
            lock,
        ),
        "doc:libs/core/src/LockFile.ts#Paths.join": (
            "Joins the segments of a path with forward slashes only.",
            lock,
        ),
        "doc:libs/store/src/checksum.ts#checksum": (
            "Computes the checksum of a file in the store index.",
            ["libs/store/src/checksum.ts", "libs/store2/src/checksum.ts"],
        ),
    }
    # Left out, each for its reason: a private member, a comment that
    # starts with a tag, TODO, a lint directive, fewer than five words, {@inheritDoc}, not exported,
    # a plain block comment, a blank line in between, the copyright header, and every excluded file.
    assert [q["id"] for q in queries] == sorted(got)


@pytest.mark.parametrize(
    ("comment", "sentence"),
    [
        (
            "/** Reads the file e.g. from disk, i.e. slowly. Then more. */",
            "Reads the file e.g. from disk, i.e. slowly.",
        ),
        (
            "/**\n * Runs `node` via Node.js and waits.\n * Second one.\n */",
            "Runs node via Node.js and waits.",
        ),
        ("/** Calls {@link Foo} and <b>then</b> **stops** now */", "Calls Foo and then stops now"),
        (
            "/**\n * First paragraph has five words\n *\n * second paragraph */",
            "First paragraph has five words",
        ),
        ("/** @deprecated Use something else instead of this one. */", None),
        ("/** FIXME: this does the wrong thing for a while */", None),
        ("/** prettier-ignore because the table is aligned by hand */", None),
        ("/** Copyright 2024 the authors, who wrote this code */", None),
        ("/** Only four words here. */", None),
        ("/*** A banner comment that is drawn with stars ***/", None),
        ("// A line comment above a declaration is not a doc comment", None),
    ],
)
def test_first_sentence(build_doc, comment: str, sentence: str | None) -> None:  # type: ignore[no-untyped-def]
    assert build_doc.first_sentence(comment) == sentence


def test_the_sample_is_stable_and_grows_by_adding(build_doc, git_repo) -> None:  # type: ignore[no-untyped-def]
    files = {
        f"pkg/src/f{i}.ts": f"/** Computes value number {i} from the given inputs. */\nexport function f{i}(): void {{}}\n"
        for i in range(12)
    }
    repo = git_repo(files)
    policy = crawlpolicy.parse(PART, "test")
    every = build_doc.build(str(repo.path), repo.head(), policy, "", 100)
    five = build_doc.build(str(repo.path), repo.head(), policy, "", 5)
    assert len(every) == 12 and len(five) == 5
    assert five == build_doc.build(str(repo.path), repo.head(), policy, "", 5)
    assert {q["id"] for q in five} < {q["id"] for q in every}
    assert {q["id"] for q in five} != {f"doc:pkg/src/f{i}.ts#f{i}" for i in range(5)}, (
        "sampled by hash, not order"
    )
