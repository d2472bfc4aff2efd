"""Show how one local file is chunked: lines, sizes, breadcrumbs, kinds and split markers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from monodex.commands.common import add_json
from monodex.disk import paths
from monodex.errors import UsageError
from monodex.labels import standing
from monodex.observe import output
from monodex.settings import config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a file on disk")
    parser.add_argument(
        "--strategy", help="a crawl policy strategy: typescript, python, json, ... (default: by suffix)"
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--max-tokens", type=int, default=256, help="the embedder's token limit (default 256)")
    size.add_argument("--budget", type=int, help="the chunk budget in UTF-8 bytes (instead of --max-tokens)")
    parser.add_argument(
        "--package", help="package name for breadcrumbs (default: the one a crawl of the repository stores)"
    )
    add_json(parser)


def _as_indexed(path: Path) -> tuple[str, str]:
    """(relative_path, package_name) as a crawl of the repository around `path` stores them: the
    crawl's own rule (the nearest manifest of the file's ecosystem, else the catalog name: the
    registered one, or the folder's as a dry run names it). Outside a repository: the file name
    and the manifests above it."""
    from monodex.indexer.packages.lookup import PackageIndex, package_of

    path = path.resolve()
    top = standing.toplevel(path.parent)
    if top is None:
        rel = path.relative_to(path.anchor).as_posix()
        return path.name, PackageIndex.above(Path(path.anchor), [rel]).lookup(rel) or ""
    top = top.resolve()
    rel = path.relative_to(top).as_posix()
    catalogs = {name: c.path for name, c in config.load(paths.resolve()).catalogs.items()}
    here = standing.find(top, catalogs)
    return rel, package_of(PackageIndex.above(top, [rel]), rel, here.catalog if here else top.name)


def _strategy(path: Path, text: str) -> str:
    from monodex.indexer.chunkers.suffixes import strategy_for

    return strategy_for(path.name, text)


def _budget(args: argparse.Namespace) -> int:
    from monodex.indexer import chunkers

    if getattr(args, "budget", None) is not None:
        if args.budget < 40:
            raise UsageError(f"--budget {args.budget} is too small", "use at least 40 bytes, e.g. 800")
        return int(args.budget)
    if args.max_tokens < 8:
        raise UsageError(f"--max-tokens {args.max_tokens} is too small", "use the model's limit, e.g. 256")
    return chunkers.budget_for(args.max_tokens)


def _render(r: dict[str, Any]) -> str:
    out = [f"{r['path']}: {len(r['chunks'])} chunks ({r['chunker_id']}, budget {r['budget']} bytes)"]
    for c in r["chunks"]:
        out.append(
            f"\n#{c['chunk_ordinal']} lines {c['start_line']}-{c['end_line']} {c['bytes']} bytes "
            f"{c['chunk_type']}/{c['chunk_kind']}  {output.crumb(c['breadcrumb'])}"
        )
        out.extend(f"> {ln}" for ln in c["text"].removesuffix("\n").split("\n"))
    out[1:1] = [f"note: {n}" for n in r["notes"]]
    return output.sanitize("\n".join(out))


def run(args: argparse.Namespace) -> int:
    from monodex.indexer import chunkers
    from monodex.indexer.chunkers.base import FileContext

    path = Path(args.path)
    if not path.is_file():
        raise UsageError(f"{path} is not a file", "pass the path of a file on disk")
    data = path.read_bytes()
    if b"\x00" in data[:8000]:
        raise UsageError(f"{path} looks binary", "monodex chunks text files only")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text", "monodex chunks UTF-8 files only") from None
    strategy = args.strategy or _strategy(path, text)
    if strategy not in chunkers.CHUNKERS:
        raise UsageError(f"unknown strategy {strategy!r}", f"use one of {', '.join(chunkers.CHUNKERS)}")
    budget = _budget(args)
    notes = []
    if budget == chunkers.budget_for(10**9) and args.budget is None:
        notes.append(
            f"the chunk budget is capped at {budget} bytes (the original's budget, which suits an "
            "8192-token model); pass --budget N for larger chunks"
        )
    relative_path, package = _as_indexed(path)
    package = args.package if args.package is not None else package
    ctx = FileContext(relative_path=relative_path, package_name=package, budget=budget)
    chunks = chunkers.chunk_file(strategy, text, ctx)
    result = {
        "path": str(path),
        "relative_path": relative_path,
        "package_name": package,
        "strategy": strategy,
        "chunker_id": chunkers.chunker_id(strategy, budget),
        "budget": budget,
        "notes": notes,
        "chunks": [
            {
                "chunk_ordinal": i,
                "start_line": c.start_line,
                "end_line": c.end_line,
                "bytes": len(c.text.encode("utf-8", "surrogatepass")),
                "symbol_name": c.symbol_name,
                "chunk_type": c.chunk_type,
                "chunk_kind": c.chunk_kind,
                "breadcrumb": c.breadcrumb,
                "text": c.text,
            }
            for i, c in enumerate(chunks, start=1)
        ],
    }
    output.emit(result, as_json=args.json, render=_render)
    return 0
