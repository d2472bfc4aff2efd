"""Answers as text for people and text-only clients: the search and status renderers the CLI and
the MCP tools share (a command's own one-surface renderer stays with the command)."""

from __future__ import annotations

import time
from typing import cast

from monodex.front import render_across
from monodex.front.render_across import containing as containing
from monodex.front.render_across import diff as diff
from monodex.front.render_freshness import day, freshness_line
from monodex.observe import crawlstate, output, progress
from monodex.observe.output import crumb as crumb  # the one breadcrumb decoder, for every renderer
from monodex.schema.search import Budget, Explain, Hit, Part, Reading, SearchAnswer
from monodex.schema.status import (
    Checkout,
    Dense,
    Job,
    Refreshing,
    Runner,
    RunningCrawl,
    SpoolState,
    StatusAnswer,
    StatusLabel,
    Unread,
)


def explain_line(e: Explain) -> str:
    def at(rank: int | None) -> str:
        return f"#{rank}" if rank else "-"

    text = f"{e['mode']}: dense {at(e['dense_rank'])}, lexical {at(e['lexical_rank'])}"
    text += f", fused #{e['fused_rank']} ({e['fused_score']:.4f})"
    for m in e.get("signals", ()):
        text += f", {m['signal']} {m['change']:+.4f} ({m['why']})"
    if e["demoted"]:
        text += f", {e['role']}: moved down"
    return text


def reading_line(r: Reading) -> str:
    text = f"read as: {r['read_as']}" + (" (asked as a question)" if r["read_as"] == "phrase" else "")
    if r["names"]:
        text += "; names: " + ", ".join(r["names"])
    if r["asks"]:
        text += "; asks for: " + ", ".join(r["asks"])
    return text


def budget_line(b: Budget) -> str:
    text = f"{b['used_tokens']} of {b['max_tokens']} tokens"
    if b["truncated"]:
        text += f"; {b['truncated']} block(s) cut at a line"
    if b["omitted"]:
        left = ", ".join(f"{o['relative_path']}:{o['start_line']}-{o['end_line']}" for o in b["omitted"])
        text += f"; left out {len(b['omitted'])}: {left}"
    return text


def search(result: SearchAnswer, *, whole: bool = False, budget: str = "--max-tokens") -> str:
    """Text for people and text-only clients: whole blocks with a budget (or `whole`), else
    three lines a hit. `budget` names the token budget as the reader's surface spells it."""
    lines = [f"# {freshness_line(result['freshness'])}"] if result.get("freshness") else []
    lines += render_across.freshness_lines(result.get("freshness_by_label") or {})
    lines += [f"# note: {n}" for n in result.get("notes", [])]
    if reading := result.get("query"):
        lines.append(f"# {reading_line(reading)}")
    if not result["results"]:
        b = result.get("budget")
        if b and b["omitted"]:  # hits were found, but none fitted the budget
            left = ", ".join(f"{o['relative_path']}:{o['start_line']}-{o['end_line']}" for o in b["omitted"])
            text = f"nothing fits in {b['max_tokens']} tokens; left out {len(b['omitted'])}: {left}"
            return "\n".join([*lines, output.sanitize(text), f"(raise {budget} to see them)"])
        return "\n".join([*lines, "No results."])
    if "budget" in result or whole:
        tail = [f"# {budget_line(result['budget'])}"] if "budget" in result else []
        return "\n\n".join([*lines, *map(_block, result["results"]), *tail])
    blocks = lines
    for r in result["results"]:
        where = f"{r['relative_path']}:{r['start_line']}-{r['end_line']}"
        head = f"{where}  {r['score']:.3f}  {crumb(r['breadcrumb'])}"
        head += f"\n  id {r['file_id']}:{r['chunk_ordinal']} ({r['chunk_ordinal']}/{r['chunk_count']})"
        if r.get("also"):
            head += "\n  also in other languages: " + ", ".join(r["also"])
        if more := r.get("more_in_file"):
            head += "\n  more in this file: " + ", ".join(_part(p) for p in more)
        head += render_across.holders(r)
        if "explain" in r:
            head += "\n  " + explain_line(r["explain"])
        lines = [ln for ln in str(r["text"]).splitlines() if ln.strip()][:3]
        blocks.append(output.sanitize(head + "".join(f"\n  > {ln}" for ln in lines)))
    return "\n\n".join(blocks)


def _part(p: Part) -> str:
    return f"{p['start_line']}-{p['end_line']}" + (f" {p['symbol_name']}" if p["symbol_name"] else "")


def _block(r: Hit) -> str:
    cut = " (cut)" if r.get("truncated") else ""
    where = f"{r['relative_path']}:{r['start_line']}-{r['end_line']}{cut}  {r['score']:.3f}"
    where += f"  {crumb(r['breadcrumb'])}" if r.get("breadcrumb") else ""  # as the three-line hit shows it
    head = f"{where}  id {r['file_id']}"
    head += render_across.holders(r)
    return output.sanitize(head + "\n" + str(r["text"]).rstrip("\n"))


def status(r: StatusAnswer) -> str:
    run = r["runner"]
    lines = [f"runner: {_runner_line(run)}"]
    if refresh := r.get("refresh"):
        lines.append(_refresh_line(refresh))
    lines += [_crawl_line(c) for c in r.get("crawls", [])]
    lines.extend(_spool_lines(r["spool"], running=run["running"]))
    running = (r["refresh"] or {}).get("state") == "running"
    for name, job in sorted(r["jobs"].items()):
        # the last finished drain: while one runs, "drain: ok" alone would read as "nothing to do"
        lines.append(
            ("drain: running now; last " if running and name == "drain" else "") + _job_line(name, job)
        )
    for problem in r.get("problems", []):
        lines += [f"ERROR {problem['problem']}", f"  next: {problem['hint']}"]
    for lb in r["labels"]:
        if "error" in lb:  # the index could not be read (full disk, busy): say why
            lines.append(f"labels: {cast(Unread, lb)['error']}")
            continue
        fresh = lb.get("freshness", "") + (" (refreshing)" if lb.get("refreshing") else "")
        if gone := lb.get("branch_gone"):
            fresh = f"branch gone since {day(gone['since'])}, removed after {day(gone['removed_after'])}"
        lines.append(f"{lb['catalog']}:{lb['label']}\t{_commit(lb)}\t{fresh}{_dense_text(lb.get('dense'))}")
        if lb.get("problem"):  # why its freshness is unknown
            lines.append(f"  {lb['problem']}; next: {lb['hint']}")
    lines += [_worktree_line(wt) for wt in r.get("worktrees", [])]
    return output.sanitize("\n".join(lines))


def _crawl_line(c: RunningCrawl) -> str:
    """A crawl running now (the runner's or a command's): where it is, and its memory."""
    done = f"files {c.get('files_done', 0)}/{c.get('files_total') or '?'} · chunks {c.get('chunks', 0)}"
    if c.get("phase") == "dense":
        done = f"dense vectors {c.get('files_done', 0)}/{c.get('files_total') or '?'}"
    elif c.get("phase") == crawlstate.PLANNING:
        done = "planning"
    rolls = c.get("rolls", 0)
    memory = (
        f"memory {c.get('rss_mb', '?')} MB (peak {c.get('peak_rss_mb', '?')} MB, "
        f"ceiling {c.get('max_memory_mb', '?')} MB" + (f", {rolls} rolls" if rolls else "") + ")"
    )
    return f"crawl {c.get('catalog')}:{c.get('label')} (pid {c.get('pid')}): {done} · {memory}"


def _worktree_line(wt: Checkout) -> str:
    on = f"branch {wt['branch']}" if wt["branch"] else f"detached at {str(wt['head'])[:12]}"
    mark = " (you are here)" if wt.get("here") else ""
    return f"worktree {wt['catalog']} {wt['path']}{mark}\t{on}\tlabel {wt['label']}\t{wt['freshness']}"


def _chunks(n: int) -> str:
    return f"{n} chunk" if n == 1 else f"{n} chunks"


def _dense_text(d: Dense | None) -> str:
    """Phase two of a label: nothing once every chunk has its vector."""
    if not d or d.get("state") == "complete":
        return ""
    eta = f", ETA {progress.duration(left)}" if (left := d.get("eta_seconds")) is not None else ""
    return (
        f"\tdense vectors {progress.percent(d['coverage'], left=d['pending'])} "
        f"({_chunks(d['pending'])} to go, {d.get('state')}{eta}; "
        "searchable meanwhile: lexical for those)"
    )


def _commit(lb: StatusLabel) -> str:
    if lb.get("source_kind") == "working-directory":
        return "(working dir)"
    return str(lb.get("commit_oid", ""))[:12] + ("" if lb.get("crawl_complete", True) else " (incomplete)")


def _runner_line(run: Runner) -> str:
    if not run["running"]:
        return "not running (start it with 'monodex runner' or its systemd service)"
    up = run.get("uptime_seconds")
    since = f", up {progress.duration(up)}" if up is not None else ""
    return f"running, pid {run['pid']}{since}"


def _refresh_line(rf: Refreshing) -> str:
    done = f"{rf['files_done']}/{rf['files_total']} files embedded" if rf.get("files_total") else "planning"
    what = f"{rf['label']} to {str(rf['commit'])[:12]}: {done}, {rf.get('chunks_embedded', 0)} chunks"
    if rf["state"] == "running":
        return f"refreshing {what}, started {progress.duration(time.time() - rf['started_at'])} ago"
    return f"interrupted refresh of {what} (its runner stopped; the request stays queued and resumes)"


def _spool_lines(sp: SpoolState, *, running: bool) -> list[str]:
    queued = sp["pending"] + sp["claimed"]
    if running:
        lines = [f"spool: {sp['pending']} pending, {sp['claimed']} being refreshed, {sp['failed']} failing"]
    elif queued:
        lines = [
            f"spool: {_n(queued, 'request')} queued, {sp['failed']} failing; they run when the runner starts"
        ]
    else:
        lines = ["spool: empty"]
    if sp.get("unreadable"):
        lines.append(
            f"spool: {_n(len(sp['unreadable']), 'queued file')} that is no request "
            "(set aside at the next drain):"
        )
        lines += [f"  {q['name']}: {q['reason']}" for q in sp["unreadable"][:10]]
    if sp["quarantined"]:
        lines.append(
            f"spool: {_n(sp['quarantined'], 'malformed request')} set aside in {sp['quarantine_dir']}:"
        )
        lines += [f"  {q['name']}: {q['reason']}" for q in sp["quarantine"][:10]]
        lines.append(f"  next: {sp['quarantine_hint']}")
    return lines


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


_JOB_NAMES = {"last_productive_drain": "last drain that had work"}


def _job_line(name: str, job: Job) -> str:
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(job["finished_at"]))
    outcome = job.get("outcome") or ("ok" if job["ok"] else "failed")
    line = f"{_JOB_NAMES.get(name, name)}: {outcome if outcome == 'ok' else outcome.upper()} at {when}"
    result = job.get("result") or {}
    if outcome == "ok" and result.get("refreshed"):
        line += f", refreshed {result['refreshed']}"
    if outcome == "interrupted" and result.get("interrupted"):
        line += f" ({result['interrupted'].get('label')}; its request stays queued)"
    elif outcome == "failed" and result.get("error"):
        line += f": {result['error']}"
    return line
