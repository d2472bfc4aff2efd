"""The dry run names a folder beside the repository's code that holds much of what a crawl would
embed: JetBrains/Exposed's committed API site was 89 % of its planned chunks, an hour and a half of
embedding, and nothing said so before it began. The project's own sources are never named (the
first version named hono's `src/`, 89 % of its chunks, and the code or tests of 27 of the 31
bench repositories, each with the advice to leave a folder out)."""

from __future__ import annotations

import json

from monodex.commands.crawl import heaviest_folder
from monodex.main import main
from monodex.schema.crawl import PlannedFile


def _files(*spec: tuple[str, int]) -> list[PlannedFile]:
    return [{"path": p, "strategy": "lineBased", "chunks": n} for p, n in spec]


def test_the_heaviest_folder_beside_the_code_is_named_with_what_it_holds() -> None:
    exposed = _files(
        *((f"docs/api/exposed-{m}/index.html", 900) for m in ("core", "dao", "jdbc", "json")),
        ("exposed-core/src/main/kotlin/Table.kt", 190),
        ("exposed-dao/src/main/kotlin/Entity.kt", 120),
        ("README.md", 10),
    )
    # the outermost such folder: what one pattern leaves out
    assert heaviest_folder(exposed) == ("docs/", 3600, "documentation")
    spdlog = _files(
        ("include/spdlog/fmt/bundled/format.h", 300),
        ("include/spdlog/fmt/bundled/core.h", 200),
        ("include/spdlog/logger.h", 100),
        ("include/spdlog/sinks/file_sink.h", 100),
        ("tests/test_misc.cpp", 100),
    )
    assert heaviest_folder(spdlog) == ("include/spdlog/fmt/bundled/", 500, "a copy of other code")
    guides = _files(*((f"guides/{n}.md", 40) for n in ("intro", "routing", "errors")), ("app/main.py", 100))
    assert heaviest_folder(guides) == ("guides/", 120, "documentation")  # pages for people, by share
    agents = _files(*((f".claude/skills/{n}/SKILL.md", 50) for n in "abc"), ("src/lib.rs", 100))
    assert heaviest_folder(agents) == (".claude/", 150, "instructions for coding agents")


def test_the_repositorys_own_code_and_its_tests_are_never_named() -> None:
    # hono keeps 89 % of its chunks in src/, express 64 % in test/: nothing there to leave out
    hono = _files(*((f"src/adapter/{i}.ts", 80) for i in range(10)), ("docs/MIGRATION.md", 20))
    assert heaviest_folder(hono) is None
    express = _files(*((f"test/{i}.js", 80) for i in range(8)), ("lib/router.js", 200), ("index.js", 10))
    assert heaviest_folder(express) is None
    fixtures = _files(("test/fixtures/examples/a.js", 10), ("lib/a.js", 20))
    assert heaviest_folder(fixtures) is None  # examples under a test folder are the tests'


def test_no_folder_is_named_when_none_holds_a_quarter() -> None:
    even = _files(*((f"pkg{i}/src/mod.rs", 10) for i in range(5)), ("examples/demo.rs", 10))
    assert heaviest_folder(even) is None  # examples/ holds a sixth
    assert heaviest_folder(_files(("a.ts", 5), ("b.ts", 5))) is None  # files at the top only
    assert heaviest_folder([]) is None


def test_the_dry_runs_text_names_the_folder_and_how_to_leave_it_out(git_repo, run_json) -> None:  # type: ignore[no-untyped-def]
    page = "".join(f"<p>Page {i} describes the member number {i} of the API.</p>\n" for i in range(400))
    repo = git_repo(
        {
            **{f"docs/api/page{i}.html": page for i in range(6)},
            "src/app.py": "def main():\n    return 1\n",
            "README.md": "# acme\n",
        },
        name="acme",
    )
    assert main(["catalog", "add", "acme", str(repo.path)]) == 0
    code, out, err = run_json("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run")
    assert code == 0, err
    line = next(x for x in out.splitlines() if "of the chunks" in x)
    assert line.strip().startswith("docs/ holds") and "documentation" in line
    # the advice is a policy to copy: written as said, it leaves the folder out and nothing else
    advice = json.loads(line[line.index("{") : line.rindex("}") + 1])
    assert advice == {"version": 1, "extends": "built-in", "patternsToExclude": ["docs/"]}
    (repo.path / "monodex-crawl.json").write_text(json.dumps(advice))
    dry = ("crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "--json")
    code, plan, err = run_json(*dry)
    assert code == 0, err
    assert {f["path"] for f in plan["files"]} == {"src/app.py", "README.md"}
    assert plan["skipped"] == {"folder docs/": 6}
    code, plan, _ = run_json(
        "crawl", "--catalog", "acme", "--label", "main", "--commit", "HEAD", "--dry-run", "--json"
    )
    assert code == 0 and set(plan) >= {"files", "chunks"}  # --json keeps its fields: the list says it
