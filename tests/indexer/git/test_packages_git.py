"""Packages of every ecosystem on real repositories: a commit's plan names them, and an
incremental refresh re-touches the files under a manifest that was edited, added or removed."""

from __future__ import annotations

from monodex.indexer.git import gitobjects
from monodex.indexer.git.delta import plan_delta
from monodex.indexer.git.plan import plan_commit
from monodex.indexer.policy import crawlpolicy

from monodex.disk import paths

FILES: dict[str, str | bytes] = {
    "package.json": '{"name": "root"}',
    "crates/core/Cargo.toml": '[package]\nname = "acme-core"\nversion = "1.0.0"\n',
    "crates/core/src/lib.rs": "pub fn parse_config() -> u32 { 1 }\n",
    "crates/core/src/util.rs": "pub const MAX_FILE_BYTES: usize = 1;\n",
    "svc/go.mod": "module github.com/acme/svc\n",
    "svc/main.go": "package main\n\nfunc main() {}\n",
    "py/pyproject.toml": '[project]\nname = "acme-py"\n',
    "py/acme/cli.py": "def main():\n    pass\n",
    "web/index.ts": "export const x = 1;\n",
}


def _plan(repo):  # type: ignore[no-untyped-def]
    g = gitobjects.open_repo(repo.path)
    policy = crawlpolicy.load(repo.path, paths.resolve())
    return (
        g,
        policy,
        {f.relative_path: f.package_name for f in plan_commit(g, g.resolve("HEAD"), policy, "acme").files},
    )


def test_commit_plan_names_packages_of_every_ecosystem(git_repo) -> None:  # type: ignore[no-untyped-def]
    _, _, packages = _plan(git_repo(FILES))
    assert packages["crates/core/src/lib.rs"] == "acme-core"
    assert packages["crates/core/Cargo.toml"] == "acme-core"
    assert packages["svc/main.go"] == "github.com/acme/svc"
    assert packages["py/acme/cli.py"] == "acme-py"
    assert packages["web/index.ts"] == "root"


def test_a_manifest_edit_retouches_the_files_under_it(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES)
    base = repo.head()
    repo.write("crates/core/Cargo.toml", '[package]\nname = "acme-kernel"\nversion = "1.0.0"\n')
    repo.git("rm", "-q", "svc/go.mod")
    repo.write("py/acme/go.mod", "module github.com/acme/odd\n")  # an added manifest
    target = repo.commit("rename the crate, drop the Go module, add one")
    g, policy, full = _plan(repo)
    delta = plan_delta(g, [base], target, policy, "acme")
    moved = {"crates/core/src/lib.rs", "crates/core/src/util.rs", "svc/main.go", "py/acme/cli.py"}
    assert moved <= delta.scope
    assert "web/index.ts" not in delta.scope
    got = {f.relative_path: f.package_name for f in delta.plan.files}
    assert got["crates/core/src/lib.rs"] == "acme-kernel" == full["crates/core/src/lib.rs"]
    assert got["svc/main.go"] == "root" == full["svc/main.go"]  # falls through to package.json
    assert got["py/acme/cli.py"] == "github.com/acme/odd" == full["py/acme/cli.py"]  # the nearest folder


def test_a_version_bump_retouches_nothing_below(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo(FILES)
    base = repo.head()
    repo.write("crates/core/Cargo.toml", '[package]\nname = "acme-core"\nversion = "1.1.0"\n')
    target = repo.commit("bump")
    g, policy, _ = _plan(repo)
    assert plan_delta(g, [base], target, policy, "acme").scope == {"crates/core/Cargo.toml"}
