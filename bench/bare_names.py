"""A question that is one function's or method's name (issue 34): does the file that defines it
come first? Names are drawn from a bench installation's own source chunks (tests left out): a
function or method declared in exactly one file by the languages' keywordless forms (C's and
C++'s functions, Java's and C#'s, TypeScript's and JavaScript's methods), six letters or more,
not capitalized (a class is another question), and named at least four times across the source,
so its callers compete with it. The draw is seeded and taken before anything is measured.

Both builds of the rule run over the same installation: `off` derives every chunk's `defines`
without the keywordless forms (what an index held before them) and searches with them off,
`on` derives and searches with them; the installation is left as `on` (what a crawl now stores).

Usage: .venv/bin/python bench/bare_names.py gson jsoup hono zod [--n 40] [--seed 7]
(bench targets as `bench/answers.py` names them, crawled by it first).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import re
import statistics
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import answers  # noqa: E402
from _common import persistent_xdg  # noqa: E402

_KEYWORDLESS = ("_C_FUNCTION", "_JAVA_METHOD", "_JS_METHOD")
_TESTS = re.compile(r"(^|/)(tests?|__tests__|spec|testing)/|[._-]test\.|_test\.|Tests?\.java$|Test\.kt$")


@contextlib.contextmanager
def rules(on: bool) -> Iterator[None]:
    """The keywordless forms of `defined`, or none of them."""
    from monodex.indexer.points import defined

    saved = {k: getattr(defined, k) for k in _KEYWORDLESS}
    if not on:
        for k in _KEYWORDLESS:
            setattr(defined, k, re.compile(r"(?!x)x"))
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(defined, k, v)


def rederive(s: Any, chunks: list[Any]) -> int:
    """Store every chunk's `defines` as the current rules derive it; how many changed."""
    from monodex.indexer.points import defined
    from monodex.indexer.points.langs import lang_of

    changed = 0
    for r in chunks:
        pl = r.payload
        path = str(pl["relative_path"])
        new = defined.names_of(
            path, lang_of(path), pl.get("symbol_name"), pl.get("chunk_type"), str(pl.get("text") or "")
        )
        if list(pl.get("defines") or []) != new:
            s.store.set_payload([r.id], {"defines": new})
            pl["defines"] = new
            changed += 1
    return changed


def draw(chunks: list[Any], n: int, seed: int) -> dict[str, str]:
    """name -> the one source file that defines it (see the module's docstring)."""
    from monodex.indexer.points import defined

    forms = ("c", "cpp", "java", "csharp", "typescript", "javascript")
    where: dict[str, set[str]] = defaultdict(set)
    said: Counter[str] = Counter()
    for r in chunks:
        pl = r.payload
        path, lang, text = str(pl["relative_path"]), pl.get("lang"), str(pl.get("text") or "")
        if lang not in forms or _TESTS.search(path):
            continue
        said.update(set(re.findall(r"[A-Za-z_$][\w$]*", text)))
        for name in defined.keywordless_functions(text, lang):
            where[name].add(path)
    pool = sorted(
        name
        for name, paths in where.items()
        if len(paths) == 1 and len(name) >= 6 and not name[0].isupper() and said[name] >= 4
    )
    random.Random(seed).shuffle(pool)
    return {name: next(iter(where[name])) for name in pool[:n]}


def measure(name: str, t: dict[str, Any], n: int, seed: int) -> dict[str, list[dict[str, float]]]:
    with persistent_xdg(t["catalog"]):
        from monodex.indexer.points import filters, membership
        from monodex.indexer.read import search as searching
        from monodex.indexer.session import Session

        from monodex.disk import paths
        from monodex.settings import config

        p = paths.resolve()
        with Session(config.load(p), p) as s:
            keys = ("relative_path", "symbol_name", "chunk_type", "text", "defines", "lang")
            flt = filters.label_chunks(membership.of(s.store, f"{t['catalog']}:main"))
            chunks = list(s.store.scroll(flt, payload_keys=keys))
            with rules(True):
                questions = draw(chunks, n, seed)
            out: dict[str, list[dict[str, float]]] = {}
            for on in (False, True):
                with rules(on):
                    rederive(s, chunks)
                    rows = []
                    for q, relevant in questions.items():
                        found = searching.search(
                            s.store, s.engine, catalog=t["catalog"], label="main", text=q, limit=10
                        )
                        rows.append(answers.metrics([r["relative_path"] for r in found.results], {relevant}))
                    out["on" if on else "off"] = rows
            return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("targets", nargs="+")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    all_targets = answers.targets()
    print("| set | names | off nDCG@10 / MRR@10 | on nDCG@10 / MRR@10 |")
    print("|---|---|---|---|")
    for name in args.targets:
        res = measure(name, all_targets[name], args.n, args.seed)

        def cell(rows: list[dict[str, float]]) -> str:
            return f"{statistics.fmean(r['nDCG@10'] for r in rows):.3f} / {statistics.fmean(r['MRR@10'] for r in rows):.3f}"

        print(f"| {name} | {len(res['on'])} | {cell(res['off'])} | {cell(res['on'])} |", flush=True)


if __name__ == "__main__":
    main()
