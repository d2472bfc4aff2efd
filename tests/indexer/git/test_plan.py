from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from monodex.indexer.git import gitobjects
from monodex.indexer.git.plan import iter_contents, plan_commit, plan_working_dir
from monodex.indexer.policy import crawlpolicy

from monodex.disk import paths

# A small Rush monorepo: root package, a scoped library, an app folder without its own
# package.json (inside the root package), build output, dependencies and awkward files.
RUSHLIKE: dict[str, str | bytes] = {
    "package.json": json.dumps({"name": "root"}),
    "rush.json": "{}",
    "libraries/foo/package.json": json.dumps({"name": "@scope/foo"}),
    "libraries/foo/src/index.ts": "export const foo = 1;\n",
    "libraries/foo/src/ui/Button.tsx": "export const Button = () => null;\n",
    "libraries/foo/src/index.test.ts": "test('x', () => {});\n",
    "libraries/foo/src/nested/package.json": "{ not json",
    "libraries/foo/src/nested/a.ts": "export const a = 1;\n",
    "libraries/foo/README.md": "# foo\n",
    "libraries/foo/lib/index.ts": "compiled\n",
    "libraries/foo/lib/index.js": "compiled\n",
    "libraries/foo/node_modules/dep/index.ts": "dep\n",
    "libraries/bar/package.json": json.dumps({"version": "1.0.0"}),
    "libraries/bar/src/bar.ts": "export const bar = 2;\n",
    "apps/x/main.ts": "export const x = 1;\n",
    "docs/guide.md": "# Guide\n",
    "config/rush.yaml": "a: 1\n",
    "src/binary.ts": b"\x00\x01\x02binary",
    "src/latin1.ts": "caf\xe9".encode("latin-1"),
    "src/empty.ts": b"",
    "src/huge.ts": "x" * 5000,  # past four times maxFileBytes (1000 here): code may be that large
}
CRAWLED = {
    "package.json": "root",
    "rush.json": "root",
    "libraries/foo/package.json": "@scope/foo",
    "libraries/foo/src/nested/package.json": "@scope/foo",
    "libraries/bar/package.json": "root",
    "libraries/foo/src/index.ts": "@scope/foo",
    "libraries/foo/src/ui/Button.tsx": "@scope/foo",
    "libraries/foo/src/index.test.ts": "@scope/foo",  # keep (src/) beats the test exclude
    "libraries/foo/src/nested/a.ts": "@scope/foo",  # broken manifest ignored
    "libraries/foo/README.md": "@scope/foo",
    "libraries/foo/lib/index.ts": "@scope/foo",  # tracked: source, whatever its folder (issue 34)
    "libraries/foo/lib/index.js": "@scope/foo",
    "libraries/bar/src/bar.ts": "root",  # nameless manifest ignored
    "apps/x/main.ts": "root",
    "docs/guide.md": "root",
    "config/rush.yaml": "root",
    "src/binary.ts": "root",
    "src/latin1.ts": "root",
}
TEXT = set(CRAWLED) - {"src/binary.ts", "src/latin1.ts"}


def _policy(repo_path: Path) -> crawlpolicy.CrawlPolicy:
    (repo_path / "monodex-crawl.json").write_text(json.dumps({**crawlpolicy.BUILTIN, "maxFileBytes": 1000}))
    return crawlpolicy.load(repo_path, paths.resolve())


def _rushlike(git_repo):  # type: ignore[no-untyped-def]
    repo = git_repo(RUSHLIKE)
    (repo.path / "src/link.ts").symlink_to("../libraries/foo/src/index.ts")
    repo.write(os.fsdecode(b"docs/caf\xe9.md"), "# latin-1 name\n")
    repo.git("add", "-A")
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{repo.head()},vendor/sub")
    repo.commit("sub+link", add_all=False)
    return repo


def test_commit_plan_strategies_packages_and_skips(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = _rushlike(git_repo)
    policy = _policy(repo.path)
    g = gitobjects.open_repo(repo.path)
    read: list[str] = []
    real_read = g.read_blobs

    def spy(ids):  # type: ignore[no-untyped-def]
        ids = list(ids)
        read.extend(ids)
        return real_read(ids)

    g.read_blobs = spy  # type: ignore[method-assign]
    plan = plan_commit(g, g.resolve("HEAD"), policy, "acme")
    by_path = {f.relative_path: f for f in plan.files}
    assert {p: f.package_name for p, f in by_path.items()} == CRAWLED
    assert by_path["libraries/foo/src/ui/Button.tsx"].strategy == "typescript"
    assert by_path["docs/guide.md"].strategy == "markdown"
    assert by_path["config/rush.yaml"].strategy == "yaml"
    assert by_path["apps/x/main.ts"].size == len("export const x = 1;\n")
    assert by_path["apps/x/main.ts"].blob_id == repo.git("rev-parse", "HEAD:apps/x/main.ts")
    assert plan.packages.lookup("libraries/foo/x.ts") == "@scope/foo"
    huge = repo.git("rev-parse", "HEAD:src/huge.ts")
    assert huge not in read  # planning read only the package.json blobs
    assert plan.skipped == Counter(
        {
            "vendored: node_modules/": 1,
            "size": 1,
            "empty": 1,
            "submodule": 1,
            "symlink": 1,
            "path-not-utf8": 1,
        }
    )
    texts = dict((f.relative_path, c) for f, c in iter_contents(plan))
    assert set(texts) == TEXT and huge not in read
    assert texts["docs/guide.md"] == b"# Guide\n"
    assert plan.skipped["binary"] == 1 and plan.skipped["not-utf8"] == 1


def test_catalog_name_when_no_package_applies(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n", "pkg/package.json": '{"name": "p"}'})
    g = gitobjects.open_repo(repo.path)
    plan = plan_commit(g, g.resolve("HEAD"), crawlpolicy.load(repo.path, paths.resolve()), "acme")
    assert [(f.relative_path, f.package_name) for f in plan.files] == [
        ("pkg/package.json", "p"),
        ("src/a.ts", "acme"),
    ]


def test_same_blob_at_two_paths_is_read_once_and_yielded_twice(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n", "src/b.ts": "export const a = 1;\n"})
    g = gitobjects.open_repo(repo.path)
    plan = plan_commit(g, g.resolve("HEAD"), crawlpolicy.load(repo.path, paths.resolve()), "acme")
    assert sorted(f.relative_path for f, _ in plan.reader(plan.files)) == ["src/a.ts", "src/b.ts"]


def test_working_dir_plan(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(RUSHLIKE)
    outside = tmp_path / "secret.ts"
    outside.write_text("export const secret = 1;\n")
    (repo.path / "src/outside.ts").symlink_to(outside)
    (repo.path / "src/dirlink").symlink_to(tmp_path)
    (repo.path / ".gitignore").write_text("ignored/\n")
    repo.write("ignored/x.ts", "export const ignored = 1;\n")
    repo.write("vendor/nested/.git", "gitdir: elsewhere\n")  # a nested repository
    repo.write("vendor/nested/a.ts", "export const n = 1;\n")
    repo.write("libraries/foo/src/index.ts", "export const foo = 2;\n")  # edited, not committed
    repo.write("libraries/foo/src/new.ts", "export const fresh = 1;\n")  # untracked
    policy = _policy(repo.path)
    wd = plan_working_dir(repo.path, policy, "acme")
    by_path = {f.relative_path: f for f in wd.files}
    assert set(by_path) == set(CRAWLED) | {"libraries/foo/src/new.ts"}
    assert by_path["libraries/foo/src/new.ts"].package_name == "@scope/foo"
    for rel in ("libraries/foo/src/index.ts", "libraries/bar/src/bar.ts"):
        assert by_path[rel].blob_id == repo.git("hash-object", rel)
    g = gitobjects.open_repo(repo.path)
    committed = {f.relative_path: f.blob_id for f in plan_commit(g, g.resolve("HEAD"), policy, "acme").files}
    unchanged = set(committed) - {"libraries/foo/src/index.ts"}
    assert {p: by_path[p].blob_id for p in unchanged} == {p: committed[p] for p in unchanged}
    assert by_path["libraries/foo/src/index.ts"].blob_id != committed["libraries/foo/src/index.ts"]
    assert wd.sizes["apps/x/main.ts"] == len("export const x = 1;\n") and "src/huge.ts" not in wd.sizes
    assert wd.skipped["symlink"] == 2 and wd.skipped["submodule"] == 1
    # over its limit: src/huge.ts (code: 4 x 1000) and the policy file itself (config: 1000)
    assert wd.skipped["size"] == 2 and wd.skipped["empty"] == 1
    (repo.path / "docs/guide.md").write_text("# changed after planning\n")
    texts = {f.relative_path for f, _ in iter_contents(wd)}
    assert texts == TEXT - {"docs/guide.md"} | {"libraries/foo/src/new.ts"}
    assert (wd.skipped["binary"], wd.skipped["not-utf8"], wd.skipped["changed"]) == (1, 1, 1)


def test_working_dir_reader_never_follows_a_swapped_in_link(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n"})
    wd = plan_working_dir(repo.path, crawlpolicy.load(repo.path, paths.resolve()), "acme")
    outside = tmp_path / "secret.ts"
    outside.write_text("export const a = 1;\n")  # same content: only O_NOFOLLOW stops it
    (repo.path / "src/a.ts").unlink()
    (repo.path / "src/a.ts").symlink_to(outside)
    assert list(iter_contents(wd)) == [] and wd.skipped["changed"] == 1


def test_working_dir_reader_never_passes_through_a_swapped_in_folder_link(git_repo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The same rule one level up (issue 35, item 4): the folder, not the file, becomes a link."""
    repo = git_repo({"src/a.ts": "export const a = 1;\n"})
    wd = plan_working_dir(repo.path, crawlpolicy.load(repo.path, paths.resolve()), "acme")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "a.ts").write_text("export const a = 1;\n")  # same content: only the rule stops it
    (repo.path / "src/a.ts").unlink()
    (repo.path / "src").rmdir()
    (repo.path / "src").symlink_to(outside, target_is_directory=True)
    assert list(iter_contents(wd)) == [] and wd.skipped["changed"] == 1


def test_bundles_and_generated_files_are_skipped_when_read_typescript_by_its_header(git_repo) -> None:  # type: ignore[no-untyped-def]
    bundle = "!function(e){" + "var a=1;" * 800 + "}();\n"
    header = "// Code generated by protoc-gen-go. DO NOT EDIT.\n" + "package pb\n" * 20
    repo = git_repo(
        {
            "web/app.js": bundle,
            "svc/pb/api.pb.go": header,
            "web/src/gen.ts": "// @generated by a tool, do not edit\nexport const x = 1;\n",
            "web/src/webpack.ts": "export const R = '__webpack_require__';\n" + "x" * 3000 + "\n",
            "web/src/main.js": "export function main() {\n  return 1;\n}\n",
            "docs/api.md": "<!-- Do not edit this file. It is a report generated by API Extractor. -->\n# API\n",
        }
    )
    g = gitobjects.open_repo(repo.path)
    plan = plan_commit(g, g.resolve("HEAD"), crawlpolicy.load(repo.path, paths.resolve()), "acme")
    read = {f.relative_path for f, _ in iter_contents(plan)}
    assert read == {"web/src/main.js", "web/src/webpack.ts", "docs/api.md"}  # a page is for people
    assert dict(plan.skipped) == {
        "minified: long lines": 1,
        'generated: header "Code generated ... DO NOT EDIT"': 1,
        'generated: header "@generated"': 1,
    }
