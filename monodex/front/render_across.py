"""Answers across labels as text (issue 24): a multi-label search's freshness and holders, a
diff, and where a file or chunk exists. The CLI and the MCP tools share these."""

from __future__ import annotations

from monodex.front.render_freshness import freshness_line
from monodex.observe import output
from monodex.schema.compare import ContainingAnswer, DiffAnswer, Symbol
from monodex.schema.search import Freshness, Hit

# Past this many labels a hit names the first few and counts the rest.
_SHOWN = 6


def names_line(labels: list[str]) -> str:
    more = len(labels) - _SHOWN
    return ", ".join(labels[:_SHOWN]) + (f" (+{more} more)" if more > 0 else "")


def freshness_lines(by_label: dict[str, Freshness]) -> list[str]:
    """One line a label when few, else a count and the labels that are behind their branch."""
    if len(by_label) <= _SHOWN:
        return [f"# {label}: {freshness_line(f)}" for label, f in by_label.items()]
    stale = [label for label, f in by_label.items() if f.get("fresh") is False]
    busy = [label for label, f in by_label.items() if not f.get("complete", True)]
    line = f"# {len(by_label)} labels searched; {len(stale)} behind their branch"
    line += f" ({names_line(stale)})" if stale else ""
    line += f"; {len(busy)} being refreshed ({names_line(busy)})" if busy else ""
    return [line]


def holders(hit: Hit) -> str:
    """Which searched labels hold the hit, and which hold another version of its file."""
    if "labels" not in hit:
        return ""
    text = "\n  in: " + names_line(hit["labels"])
    others = hit.get("other_versions") or []
    if others:
        text += "\n  other version in: " + names_line([f"{o['label']} ({o['file_id']})" for o in others])
    return text


def diff(r: DiffAnswer) -> str:
    s = r["summary"]
    head = (
        f"{r['from']} -> {r['to']}: {s['files_changed']} files changed, {s['files_added']} added, "
        f"{s['files_removed']} removed; {s['chunks_added']} chunks added, {s['chunks_removed']} removed"
    )
    lines = [head] + [f"# note: {n}" for n in r.get("notes", [])]
    if not r["files"]:
        lines.append("No matching change." if "unmatched" in r else "No change.")
        return output.sanitize("\n".join(lines))
    ranked = "unmatched" in r
    package: object = object()
    for f in r["files"]:
        if not ranked and f["package"] != package:
            package = f["package"]
            lines.append(f"\n{package or '(no package)'}")
        mark = {"added": "A", "removed": "D", "changed": "M"}[f["change"]]
        score = f"  {f['score']:.3f}" if ranked else ""
        lines.append(f"  {mark} {f['path']}{score}  (+{f['chunks_added']} -{f['chunks_removed']} chunks)")
        lines += [f"      {_symbol(sym)}" for sym in f["symbols"]]
    if r.get("more"):
        lines.append(f"({r['more']} more changed files rank lower; raise the limit to see them)")
    if r.get("unmatched"):
        lines.append(f"({r['unmatched']} other changed files do not match the question)")
    return output.sanitize("\n".join(lines))


def _symbol(sym: Symbol) -> str:
    mark = {"added": "+", "removed": "-", "changed": "~"}[sym["change"]]
    lines = sym.get("to_lines") or sym.get("from_lines") or [0, 0]
    return f"{mark} {output.crumb(sym['breadcrumb'])}  {lines[0]}-{lines[1]}"


def containing(r: ContainingAnswer) -> str:
    what = f"{r['relative_path']} (file {r['file_id']})"
    if "chunk" in r:
        c = r["chunk"]
        what += f" chunk {c['chunk_ordinal']}, lines {c['start_line']}-{c['end_line']}"
        what += f" {output.crumb(c['breadcrumb'])}"
    lines = [what, "held by: " + (", ".join(r["labels"]) or "no label")]
    by_version: dict[str, list[str]] = {}
    for o in r["other_versions"]:
        by_version.setdefault(o["file_id"], []).append(o["label"])
    lines += [f"other version {fid} in: {', '.join(labels)}" for fid, labels in by_version.items()]
    return output.sanitize("\n".join(lines))
