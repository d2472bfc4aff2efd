"""Search one label with a natural-language question."""

from __future__ import annotations

import argparse
from typing import Any

from monodex import config, context, dispatch, output, paths, rpc
from monodex.commands.common import add_json, add_target, label_of
from monodex.errors import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_target(parser)
    parser.add_argument("--text", required=True, help="what you are looking for, in plain words")
    parser.add_argument("--limit", type=int, default=10, help="number of results (default 10)")
    parser.add_argument(
        "--path",
        action="append",
        dest="paths",
        metavar="PREFIX",
        help="only files in this folder (or this file), relative to the repository root; repeatable",
    )
    parser.add_argument(
        "--package",
        help="only files of this package (its package.json name; an unknown one lists the closest)",
    )
    parser.add_argument("--kind", choices=KINDS, help="only chunks of this kind")
    parser.add_argument(
        "--lang",
        help="only files in this language, e.g. typescript or markdown (a language the label has no "
        "files of is an error that lists the ones it has)",
    )
    parser.add_argument(
        "--mode",
        choices=("hybrid", "dense", "lexical"),
        default="hybrid",
        help="hybrid (default): meaning and keywords fused by Qdrant (RRF); dense: meaning only; "
        "lexical: code-aware keywords only",
    )
    parser.add_argument(
        "--per-file", type=int, default=1, metavar="N", help="at most N hits from one file (default 1)"
    )
    parser.add_argument(
        "--include-tests",
        action="store_true",
        help="rank tests, snapshots, API reports, change files and changelogs like source "
        "(by default they come after source hits of similar rank)",
    )
    parser.add_argument(
        "--explain", action="store_true", help="show each hit's dense rank, lexical rank and fused score"
    )
    parser.add_argument(
        "--fresh",
        nargs="?",
        type=float,
        const=DEFAULT_FRESH_SECONDS,
        metavar="SECONDS",
        help="first wait (at most SECONDS, default %(const)s) until the label reflects its branch's "
        "current commit, asking the runner to refresh it if needed",
    )
    parser.add_argument(
        "--max-tokens",
        type=int,
        metavar="N",
        help="pack the results into N tokens (the model's tokenizer): adjacent hits of a file are "
        "merged, what does not fit is cut at a line or listed as left out; prints whole blocks",
    )
    add_json(parser)


DEFAULT_FRESH_SECONDS = 30.0
KINDS = ("content", "imports", "changelog", "config")  # the chunkers' CHUNK_KINDS, without importing them


def freshness_line(f: dict[str, Any]) -> str:
    """One line on whether the answer reflects the code, for people and text-only clients."""
    at = (f.get("indexed_commit") or "")[:12] or "(working dir)"
    if f.get("fresh") is True:
        text = f"index at {at}, fresh with branch {f['branch']}"
    elif f.get("fresh") is False:
        text = f"index at {at}, STALE: branch {f['branch']} is at {str(f['branch_commit'])[:12]}"
        text += "; a refresh is pending" if f.get("refresh_pending") else "; no refresh queued"
    else:
        text = f"index at {at}" + ("" if f.get("complete", True) else " (refresh in progress)")
    if f.get("refresh_error"):
        text += f"; last refresh failed: {f['refresh_error'].splitlines()[0]}"
    wait = f.get("wait")
    if wait and not wait["reached"]:
        text += f" (waited {wait['waited_seconds']:.1f} s of {wait['seconds']:g} s for it)"
    return text


def explain_line(e: dict[str, Any]) -> str:
    def at(rank: int | None) -> str:
        return f"#{rank}" if rank else "-"

    text = f"{e['mode']}: dense {at(e['dense_rank'])}, lexical {at(e['lexical_rank'])}"
    text += f", fused #{e['fused_rank']} ({e['fused_score']:.4f})"
    if e["demoted"]:
        text += f", {e['role']}: moved down"
    return text


def budget_line(b: dict[str, Any]) -> str:
    text = f"{b['used_tokens']} of {b['max_tokens']} tokens"
    if b["truncated"]:
        text += f"; {b['truncated']} block(s) cut at a line"
    if b["omitted"]:
        left = ", ".join(f"{o['relative_path']}:{o['start_line']}-{o['end_line']}" for o in b["omitted"])
        text += f"; left out {len(b['omitted'])}: {left}"
    return text


def render(result: dict[str, Any], *, whole: bool = False) -> str:
    """Text for people and text-only clients: whole blocks with a budget (or `whole`), else
    three lines a hit."""
    lines = [f"# {freshness_line(result['freshness'])}"] if result.get("freshness") else []
    lines += [f"# note: {n}" for n in result.get("notes", [])]
    if not result["results"]:
        b = result.get("budget") or {}
        if b.get("omitted"):  # hits were found, but none fitted the budget
            left = ", ".join(f"{o['relative_path']}:{o['start_line']}-{o['end_line']}" for o in b["omitted"])
            text = f"nothing fits in {b['max_tokens']} tokens; left out {len(b['omitted'])}: {left}"
            return "\n".join([*lines, output.sanitize(text), "(raise --max-tokens to see them)"])
        return "\n".join([*lines, "No results."])
    if "budget" in result or whole:
        tail = [f"# {budget_line(result['budget'])}"] if "budget" in result else []
        return "\n\n".join([*lines, *map(_block, result["results"]), *tail])
    blocks = lines
    for r in result["results"]:
        head = f"{r['relative_path']}:{r['start_line']}-{r['end_line']}  {r['score']:.3f}  {r['breadcrumb']}"
        head += f"\n  id {r['file_id']}:{r['chunk_ordinal']} ({r['chunk_ordinal']}/{r['chunk_count']})"
        if "explain" in r:
            head += "\n  " + explain_line(r["explain"])
        lines = [ln for ln in str(r["text"]).splitlines() if ln.strip()][:3]
        blocks.append(output.sanitize(head + "".join(f"\n  > {ln}" for ln in lines)))
    return "\n\n".join(blocks)


def _block(r: dict[str, Any]) -> str:
    cut = " (cut)" if r.get("truncated") else ""
    head = f"{r['relative_path']}:{r['start_line']}-{r['end_line']}{cut}  {r['score']:.3f}  id {r['file_id']}"
    return output.sanitize(head + "\n" + str(r["text"]).rstrip("\n"))


def run(args: argparse.Namespace) -> int:
    p = paths.resolve()
    cfg = config.load(p)
    catalog, label = context.resolve(p, args.catalog, label_of(args))
    cfg.catalog(catalog)
    rpc.check_query(args.text)
    if args.limit < 1:
        raise UsageError(f"--limit must be at least 1, got {args.limit}", "pass --limit 10")
    if args.max_tokens is not None and args.max_tokens < 1:
        raise UsageError(f"--max-tokens must be at least 1, got {args.max_tokens}", "pass --max-tokens 2000")
    if args.fresh is not None and args.fresh < 0:
        raise UsageError(f"--fresh must not be negative, got {args.fresh:g}", "pass --fresh or --fresh 30")
    query: dict[str, Any] = {"catalog": catalog, "label": label, "text": args.text, "limit": args.limit}
    if args.per_file < 1:
        raise UsageError(f"--per-file must be at least 1, got {args.per_file}", "pass --per-file 1")
    for key in ("paths", "package", "kind", "lang", "include_tests", "explain"):
        if getattr(args, key):
            query[key] = getattr(args, key)
    query["mode"], query["per_file"] = args.mode, args.per_file
    if args.fresh is not None:
        query["fresh"] = args.fresh
    if args.max_tokens is not None:
        query["max_tokens"] = args.max_tokens
    result = dispatch.execute(p, "search", query, quiet=args.json)
    output.emit(result, as_json=args.json, render=render)
    return 0
