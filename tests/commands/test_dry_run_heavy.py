"""The dry run names a folder that holds most of what a crawl would embed: JetBrains/Exposed's
committed API site was 89 % of its planned chunks, an hour and a half of embedding, and nothing
said so before it began."""

from __future__ import annotations

from monodex.commands.crawl import heaviest_folder
from monodex.main import main
from monodex.schema.crawl import PlannedFile


def _files(*spec: tuple[str, int]) -> list[PlannedFile]:
    return [{"path": p, "strategy": "lineBased", "chunks": n} for p, n in spec]


def test_the_deepest_folder_holding_a_quarter_is_named() -> None:
    exposed = _files(
        *((f"docs/api/exposed-{m}/index.html", 900) for m in ("core", "dao", "jdbc", "json")),
        ("exposed-core/src/main/kotlin/Table.kt", 190),
        ("exposed-dao/src/main/kotlin/Entity.kt", 120),
        ("README.md", 10),
    )
    assert heaviest_folder(exposed) == ("docs/api/", 3600)
    spdlog = _files(
        ("include/spdlog/fmt/bundled/format.h", 300),
        ("include/spdlog/fmt/bundled/core.h", 200),
        ("include/spdlog/logger.h", 100),
        ("include/spdlog/sinks/file_sink.h", 100),
        ("tests/test_misc.cpp", 100),
    )
    assert heaviest_folder(spdlog) == ("include/spdlog/fmt/bundled/", 500)


def test_no_folder_is_named_when_none_holds_a_quarter() -> None:
    even = _files(*((f"pkg{i}/src/mod.rs", 10) for i in range(5)), ("main.rs", 1))
    assert heaviest_folder(even) is None
    assert heaviest_folder(_files(("a.ts", 5), ("b.ts", 5))) is None  # files at the top only
    assert heaviest_folder([]) is None


def test_the_dry_runs_text_names_the_folder_and_how_to_leave_it_out(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    page = "".join(f"<p>Page {i} describes the member number {i} of the API.</p>\n" for i in range(400))
    repo = git_repo(
        {
            **{f"site/api/page{i}.html": page for i in range(6)},
            "src/app.py": "def main():\n    return 1\n",
            "README.md": "# acme\n",
        },
        name="acme",
    )
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, out, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run")
    assert code == 0, err
    line = next(x for x in out.splitlines() if "most chunks under" in x)
    assert "site/api/" in line and "patternsToExclude" in line
    code, plan, _ = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "--json"
    )
    assert code == 0 and set(plan) >= {"files", "chunks"}  # --json keeps its fields: the list says it
