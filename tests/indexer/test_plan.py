from __future__ import annotations

import json

from monodex.indexer import crawlpolicy, gitobjects
from monodex.indexer.packages import PackageIndex
from monodex.indexer.plan import plan_commit, plan_working_dir

from monodex import paths

RUSHLIKE: dict[str, str | bytes] = {
    "package.json": json.dumps({"name": "root"}),
    "libraries/foo/package.json": json.dumps({"name": "@scope/foo"}),
    "libraries/foo/src/index.ts": "export const foo = 1;\n",
    "libraries/foo/src/ui/Button.tsx": "export const Button = () => null;\n",
    "libraries/foo/src/nested/package.json": "{ not json",
    "libraries/foo/src/nested/a.ts": "export const a = 1;\n",
    "libraries/foo/lib/index.ts": "compiled\n",
    "libraries/foo/node_modules/dep/index.ts": "dep\n",
    "libraries/bar/package.json": json.dumps({"version": "1.0.0"}),
    "libraries/bar/src/bar.ts": "export const bar = 2;\n",
    "docs/guide.md": "# Guide\n",
    "config/rush.yaml": "a: 1\n",
    "src/binary.ts": b"\x00\x01\x02binary",
    "src/latin1.ts": "caf\xe9".encode("latin-1"),
    "src/empty.ts": b"",
    "src/huge.ts": "x" * 2000,
}


def _policy(repo_path):  # type: ignore[no-untyped-def]
    (repo_path / "monodex-crawl.json").write_text(json.dumps({**crawlpolicy.BUILTIN, "maxFileBytes": 1000}))
    return crawlpolicy.load(repo_path, paths.resolve())


def test_package_lookup() -> None:
    idx = PackageIndex.from_manifests(
        [
            ("package.json", b'{"name": "root"}'),
            ("a/package.json", b'{"name": "@s/a"}'),
            ("a/b/package.json", b"{bad"),
            ("c/package.json", b'{"name": ""}'),
        ]
    )
    assert (
        idx.lookup("a/b/c/x.ts") == "@s/a" and idx.lookup("x.ts") == "root" and idx.lookup("c/y.ts") == "root"
    )
    assert PackageIndex({}).lookup("a/b.ts") is None


def test_commit_plan_filters_packages_and_counts_skips(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(RUSHLIKE)
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{repo.head()},src/vendor.ts")
    (repo.path / "src/link.ts").symlink_to("../libraries/foo/src/index.ts")
    repo.git("add", "src/link.ts")
    repo.git("commit", "-q", "-m", "sub+link")
    policy = _policy(repo.path)
    g = gitobjects.open_repo(repo.path)
    plan = plan_commit(g, g.resolve("HEAD"), policy, "acme")
    by_path = {f.relative_path: f for f in plan.files}
    assert by_path["libraries/foo/src/ui/Button.tsx"].package_name == "@scope/foo"
    assert by_path["libraries/foo/src/nested/a.ts"].package_name == "@scope/foo"  # broken manifest ignored
    assert by_path["libraries/bar/src/bar.ts"].package_name == "root"  # nameless manifest ignored
    assert (
        by_path["docs/guide.md"].strategy == "markdown"
        and by_path["config/rush.yaml"].strategy == "lineBased"
    )
    assert (
        "libraries/foo/lib/index.ts" not in by_path
        and "libraries/foo/node_modules/dep/index.ts" not in by_path
    )
    assert plan.skipped["submodule"] == 1 and plan.skipped["symlink"] == 1
    read = {f.relative_path for f, _ in plan.reader(plan.files)}
    assert {"src/binary.ts", "src/latin1.ts", "src/empty.ts", "src/huge.ts"}.isdisjoint(read)
    assert (
        plan.skipped["binary"],
        plan.skipped["not-utf8"],
        plan.skipped["empty"],
        plan.skipped["size"],
    ) == (1, 1, 1, 1)
    assert plan.skipped["policy"] >= 6


def test_catalog_name_when_no_package_applies(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"src/a.ts": "export const a = 1;\n"})
    g = gitobjects.open_repo(repo.path)
    plan = plan_commit(g, g.resolve("HEAD"), crawlpolicy.load(repo.path, paths.resolve()), "acme")
    assert [f.package_name for f in plan.files] == ["acme"]


def test_working_dir_plan_matches_commit_blobs_and_never_follows_links(git_repo, tmp_path) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(RUSHLIKE)
    outside = tmp_path / "secret.ts"
    outside.write_text("export const secret = 1;\n")
    (repo.path / "src/outside.ts").symlink_to(outside)
    (repo.path / ".gitignore").write_text("ignored/\n")
    repo.write("ignored/x.ts", "export const ignored = 1;\n")
    repo.write("libraries/foo/src/index.ts", "export const foo = 2;\n")  # edited, not committed
    policy = _policy(repo.path)
    g = gitobjects.open_repo(repo.path)
    commit_blobs = {
        f.relative_path: f.blob_id for f in plan_commit(g, g.resolve("HEAD"), policy, "acme").files
    }
    wd = plan_working_dir(repo.path, policy, "acme")
    wd_blobs = {f.relative_path: f.blob_id for f in wd.files}
    assert wd_blobs["libraries/bar/src/bar.ts"] == commit_blobs["libraries/bar/src/bar.ts"]
    assert wd_blobs["libraries/foo/src/index.ts"] != commit_blobs["libraries/foo/src/index.ts"]
    assert "src/outside.ts" not in wd_blobs and wd.skipped["symlink"] == 1
    assert "ignored/x.ts" not in wd_blobs
