"""Questions from a real git history (indexer/evaluate/questions.py): pull requests squashed or
merged, plain commits, what is skipped and why, the same set every time, and a split that never
moves a question."""

from __future__ import annotations

from monodex.indexer.evaluate import questions
from monodex.indexer.evaluate.questions import MAX_ANSWERS, Built, split_of
from monodex.indexer.history.changed import MAX_FILES


def _is_source(path: str) -> bool:
    return not path.startswith("test/")


def _build(repo, *, limit: int = 100) -> Built:  # type: ignore[no-untyped-def]
    head = repo.head()
    indexed = set(repo.git("ls-tree", "-r", "--name-only", head).split())
    changes = questions.first_parent(repo.path, head, max_commits=1000)
    return questions.from_history(changes, indexed=indexed, is_answer=_is_source, limit=limit)


def _history(git_repo):  # type: ignore[no-untyped-def]
    repo = git_repo({"src/retry.ts": "retry\n", "src/config.ts": "config\n", "README.md": "# r\n"})
    repo.write("src/retry.ts", "retry with backoff\n")
    repo.write("test/retry.test.ts", "test\n")
    repo.commit("Add exponential backoff to retries (#12)")
    # a pull request merged with a merge commit: its title is the body's first line
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/yaml.ts", "yaml\n")
    repo.commit("wip")
    repo.write("src/config.ts", "config reads yaml\n")
    repo.commit("more wip")
    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# r\nsomething else\n")  # main moved on: a real merge
    repo.commit("Describe the tool in the readme")
    message = "Merge pull request #7 from me/feature\n\nTeach the config loader to read YAML\n\nLong text."
    repo.git("merge", "-q", "--no-ff", "feature", "-m", message)
    return repo


def test_squashed_and_merged_pull_requests_and_commits_become_questions(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    built = _build(repo)
    got = [(q.id, q.query, q.relevant) for q in built.questions]
    assert got == [
        ("pr-7", "Teach the config loader to read YAML", ("src/config.ts", "src/yaml.ts")),
        (repo.git("rev-parse", "HEAD^1"), "Describe the tool in the readme", ("README.md",)),
        ("pr-12", "Add exponential backoff to retries", ("src/retry.ts",)),  # not its test
    ]
    assert built.pull_requests == 2
    assert built.skipped == {"short title": 1}  # "initial"; the branch's own commits are not walked
    merged = built.questions[0]
    assert merged.commit == repo.head() and merged.origin == f"#7 {repo.head()[:10]}"
    assert merged.date is not None and merged.date.endswith("Z")


def test_what_names_no_behaviour_is_skipped_with_its_reason(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "a\n", "package.json": "{}\n", "test/a.test.ts": "t\n"})
    subjects = {
        'Revert "Add the cache layer to reads"': "revert",
        "chore(deps): update dependency typescript to v5 (#40)": "dependency bump",
        "Bump lodash from 4.17.20 to 4.17.21": "dependency bump",
        "Upgrade to Rush 5.176.0 (#43)": "dependency bump",
        "Bump versions [skip ci]": "version bump",
        "Bump to 2.0.0": "version bump",
        "Applying package updates.": "version bump",  # `rush publish --apply` before Rush 5
        "chore(release): publish (#41)": "release",
        "Release v1.2.0": "release",
        "Update changelogs [skip ci]": "release",
        "chore: prepare next minor version": "release",
        "Deleting change files and updating change logs for package updates.": "release",
        "Prepare to publish": "release",
        "v1.2.3": "release",
        "Apply Version Updates From Current Changes (#11210)": "release",  # covector's release PR
        "Version Packages (#12)": "release",  # changesets' release PR
        "Version 0.28.1 (#3445)": "release",  # httpx's release PR
        "Fix typo (#42)": "short title",
        "Cover the cache with more tests": "no indexed source file",  # tests only
    }
    for n, subject in enumerate(subjects):
        path = "test/a.test.ts" if "tests" in subject else "src/a.ts"
        repo.write(path, f"change {n}\n")
        repo.commit(subject)
    for i in range(MAX_FILES + 1):
        repo.write(f"src/bulk{i}.ts", "x\n")
    repo.commit("Reformat every source file with the new style")
    for i in range(MAX_ANSWERS + 1):
        repo.write(f"src/wide{i}.ts", "x\n")
    repo.commit("Spread the retry option over every reader")
    repo.git("checkout", "-q", "-b", "topic")
    repo.write("src/a.ts", "topic\n")
    repo.commit("Work on the topic branch")
    repo.git("checkout", "-q", "main")
    repo.write("package.json", '{"name": "x"}\n')
    repo.commit("Name the package in its manifest")
    repo.git("merge", "-q", "--no-ff", "topic", "-m", "Merge branch 'topic'")
    built = _build(repo)
    assert [q.query for q in built.questions] == ["Name the package in its manifest"]
    expected = {"bulk change": 1, "wide change": 1, "merge": 1, "short title": 1}  # "initial" is short too
    for reason in subjects.values():
        expected[reason] = expected.get(reason, 0) + 1
    assert dict(built.skipped) == expected
    assert built.walked == len(subjects) + 5


def test_the_same_commit_gives_the_same_set_in_the_same_order(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    first, second = _build(repo), _build(repo)
    assert first.questions == second.questions and first.skipped == second.skipped
    assert [q.id for q in _build(repo, limit=2).questions] == [q.id for q in first.questions[:2]]


def test_a_question_keeps_its_split_across_runs_and_as_history_grows(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = _history(git_repo)
    for n in range(20):
        repo.write(f"src/feature{n}.ts", f"feature {n}\n")
        repo.commit(f"Add feature number {n} to the tool (#{100 + n})")
    before = {q.id: q.split for q in _build(repo).questions}
    assert set(before.values()) == {"tune", "test"}  # 23 questions: both halves hold some
    for n in range(20, 30):  # history grows: new questions, and the old ones stay where they were
        repo.write(f"src/feature{n}.ts", f"feature {n}\n")
        repo.commit(f"Add feature number {n} to the tool (#{100 + n})")
    after = {q.id: q.split for q in _build(repo).questions}
    assert set(after) > set(before)
    assert {i: after[i] for i in before} == before
    assert _build(repo).questions == _build(repo).questions


def test_the_split_is_a_fixed_function_of_the_id() -> None:
    # Pinned: the bench's sets (bench/quality.py) split by the same hash; a change would move
    # questions between the halves people tuned on and the ones they held out.
    pinned = {"pr-90": "test", "pr-5949": "tune", "sparo-h01": "tune", "sparo-h02": "test"}
    assert {i: split_of(i) for i in pinned} == pinned


def test_pull_request_titles_are_read_as_github_writes_them() -> None:
    assert questions.pull_request("Add retry (#12)", "") == (12, "Add retry")
    assert questions.pull_request("Fix (#3) again (#14)", "") == (14, "Fix (#3) again")
    body = "\n  Teach the loader YAML  \n\nmore"
    assert questions.pull_request("Merge pull request #7 from me/yaml", body) == (7, "Teach the loader YAML")
    assert questions.pull_request("Add retry to the client", "(#12)") is None
    assert questions.pull_request("Merge pull request #7 from me/yaml", "") == (7, "")
