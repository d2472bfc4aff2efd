"""Derive evaluation queries from real pull requests: a squash-merged PR's title is the question,
the source files it changed (that still exist at the indexed commit, inside the crawled part)
are the answer. Deterministic: run it again and the same set comes out.

Usage: python bench/eval/build_prs.py MIRROR COMMIT PREFIX COUNT OUT.json [SUFFIXES|polyglot] [--survive=SHARE]
                                     [--skip=N]
  MIRROR    a git directory (e.g. $MONODEX_BENCH_MIRRORS/microsoft+rushstack/repo)
  PREFIX    only files under this folder count (e.g. libraries/)
  SUFFIXES  the source files that count, comma-separated (default .ts)

The sets in bench/eval/ were made with (MIRRORS is $MONODEX_BENCH_MIRRORS):
  build_prs.py $MIRRORS/tiktok+sparo/repo ca06251a491699b020e0529903ba8a726ff135e2 "" 1000 sparo-prs.json
  build_prs.py $MIRRORS/microsoft+rushstack/repo ae8073b330ea1004921cad9065f9dce60fc35a5b libraries/ 300 \
      rushstack-prs.json
  build_prs.py $MIRRORS/pnpm+pnpm/repo 36e5ae6ac8d03743442f083680fa3015e4a774b3 pnpm11/ 300 pnpm-prs.json
  build_prs.py $MIRRORS/napi-rs+napi-rs/repo 8681902c3bcd6a4bd3785c6dc7b0e72bb9fb6883 "" 400 \
      napi-rs-prs.json .rs,.ts,.tsx,.js,.mjs,.cjs,.toml  (polyglot: Rust, TypeScript, JavaScript)
and issue 34's polyglot and pnpm-workspace sets, every kind of file a change touches (pipelines,
JSON, pages too), from changes whose files are still there:
  build_prs.py $MIRRORS/napi-rs+napi-rs/repo 8681902ce671fc2010a6e40fe4e2c9557ec44fa6 "" 400 \
      napi-rs-polyglot.json polyglot --survive=0.75
  build_prs.py $MIRRORS/tauri-apps+tauri/repo a8105eccb2122f003b4a36bbfb747998f53c5f10 "" 400 \
      tauri-polyglot.json polyglot --survive=0.75
  build_prs.py $MIRRORS/vuejs+core/repo e2bede96134f757aad5c5b33ac9be055022dbfc8 "" 300 \
      vue-prs.json polyglot --survive=0.75
  build_prs.py $MIRRORS/farm-fe+farm/repo 2000ef8a790a1b565d1687cfe70564270a826e15 "" 300 \
      farm-polyglot.json polyglot --survive=0.75   (133 changes survive: Rust, TypeScript, pages)
  build_prs.py $MIRRORS/tauri-apps+plugins-workspace/repo 77149dc4320d26b413e4a6bbe82c654367c51b32 "" 300 \
      plugins-workspace-polyglot.json polyglot --survive=0.75   (109: never tuned on, all held out)
  build_prs.py $MIRRORS/huggingface+tokenizers/repo 3ba8ad0061a885baf052bbb7bbd22857e73e0c4e "" 300 \
      tokenizers-polyglot.json polyglot --survive=0.75   (153; held out, as is the next)
  build_prs.py $MIRRORS/lancedb+lancedb/repo 45cd05347846bc2280103680e497e8fc0cdf480e "" 300 \
      lancedb-polyglot.json polyglot --survive=0.75
and a tune set for the pnpm-workspace kind, whose two sets (vue, pnpm) are held out: the 400 vue
changes before the 300 of vue-prs.json (--skip leaves those out; 2022-05 to 2024-12):
  build_prs.py $MIRRORS/vuejs+core/repo e2bede96134f757aad5c5b33ac9be055022dbfc8 "" 400 \
      vue-older-prs.json polyglot --survive=0.75 --skip=300
and a second small Rush monorepo's set, built as sparo's (held out):
  build_prs.py $MIRRORS/microsoft+tsdoc/repo 2dd8912e50b884653f674801dfbb044c897c3075 "" 1000 tsdoc-prs.json
and a second set of the large Rush kind, rushstack's changes to apps/ (137: the 3,000 newest
first-parent commits hold no more), asked of the libraries/ set's index:
  build_prs.py $MIRRORS/microsoft+rushstack/repo ae8073b330ea1004921cad9065f9dce60fc35a5b apps/ 300 \
      rushstack-apps-prs.json

The log is walked newest first and stops at COUNT, so a larger COUNT only appends older PRs: the
300 rushstack queries begin with the 50 the set had before, same ids, same order. Sparo has 24
eligible PRs in all (COUNT 100 and 1000 give the same file).

Each query carries `date`, the committer date of its squash commit in UTC (when the PR landed
on the main line), so weights fitted from data can be checked on a time split: fit on the
queries with `q["date"] < cut`, test on the rest (one time zone, so the strings compare).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from monodex.indexer.evaluate import questions  # noqa: E402

# Dependency bumps, releases and repo-wide mechanics name no behaviour a search could find.
SKIP_TITLE = re.compile(
    r"^(chore|bump|update|merge|revert|release|upgrade|replace|normalize|drop|target|\[?skip ci)"
    r"|dependabot|version|readme",
    re.I,
)
TAGS = re.compile(r"^\s*(\[[^\]]+\]\s*)+")  # "[rush-lib][WS2] Add ..." -> "Add ..."; tags named the package
SECONDARY = re.compile(
    r"(^|/)(test|tests|__tests__|__snapshots__|__mocks__|__fixtures__)/|\.(test|spec)\.[cm]?[jt]sx?$|\.d\.ts$"
    r"|CHANGELOG|(^|/)Cargo\.lock$"
)


def git(mirror: str, *args: str) -> str:
    return subprocess.run(["git", "-C", mirror, *args], capture_output=True, text=True, check=True).stdout


def repo_name(mirror: str) -> str:
    """The owner/name of a mirror at <owner>+<name>/repo (the form the hand-written sets use)."""
    parts = Path(mirror).resolve().parts
    folder = parts[-2] if parts[-1] == "repo" and len(parts) > 1 else parts[-1]
    return folder.replace("+", "/", 1) if "+" in folder else mirror


# Every kind of file a polyglot monorepo's change requests touch and a user asks about: code,
# manifests and CI pipelines, JSON config, pages (issue 34's polyglot sets).
POLYGLOT = (".rs", ".ts", ".tsx", ".js", ".mjs", ".cjs", ".toml", ".yml", ".yaml", ".json", ".md")


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    mirror, commit, prefix, count, out = args[0], args[1], args[2], int(args[3]), args[4]
    suffixes = (
        (POLYGLOT if args[5] == "polyglot" else tuple(args[5].split(","))) if len(args) > 5 else (".ts",)
    )
    # --survive=SHARE: only changes of which this share of the changed files still exist at the
    # commit (a change whose files moved away left incidental ones, a root Cargo.toml, behind)
    survive = float(next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--survive=")), "0"))
    # --skip=N: leave out the newest N changes that qualify (another set already holds them)
    skip = int(next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--skip=")), "0"))
    present = set(git(mirror, "ls-tree", "-r", "--name-only", commit, *([prefix] if prefix else [])).split())
    queries = []
    log = git(mirror, "log", "--first-parent", "--format=%H%x09%ct%x09%s%x09%b%x00", commit, "-n", "3000")
    for record in filter(None, (r.strip("\n") for r in log.split("\x00"))):
        sha, stamp, subject, body = (record.split("\t", 3) + [""])[:4]
        pr = questions.pull_request(subject, body)  # monodex eval's: squash "(#N)" or a merge's body
        if pr is None or SKIP_TITLE.search(pr[1]):
            continue
        number, title = pr
        title = TAGS.sub("", title).strip().lstrip("-:/ ").strip()
        if len(title.split()) < 4:
            continue  # "Fix typo" asks nothing a search can answer
        try:
            changed = git(mirror, "diff", "--name-only", "--diff-filter=AM", f"{sha}^1", sha).split()
        except subprocess.CalledProcessError:
            continue  # the root commit: nothing to diff against
        if changed and sum(p in present for p in changed) < survive * len(changed):
            continue
        relevant = sorted(
            p for p in changed if p in present and p.endswith(suffixes) and not SECONDARY.search(p)
        )
        if not 1 <= len(relevant) <= 5:
            continue  # sweeping PRs have no "right file"
        if skip:
            skip -= 1
            continue
        queries.append(
            {
                "id": f"pr-{number}",
                "query": title,
                "relevant": relevant,
                "origin": f"#{number} {sha[:10]}",
                "date": datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            }
        )
        if len(queries) == count:
            break
    doc = {
        "repo": repo_name(mirror),
        "commit": git(mirror, "rev-parse", commit).strip(),
        "source": f"squash-merged pull requests: title -> changed {'/'.join(suffixes)} source files under "
        + prefix,
        "queries": queries,
    }
    Path(out).write_text(json.dumps(doc, indent=1) + "\n")
    print(f"{len(queries)} queries -> {out}")


if __name__ == "__main__":
    main()
