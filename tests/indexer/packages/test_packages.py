from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from monodex.indexer.packages.lookup import PackageIndex
from monodex.indexer.packages.manifests import is_manifest
from structlog.testing import capture_logs


@pytest.fixture
def default_structlog() -> Iterator[None]:
    """Another test may have configured structlog to drop debug events before capture sees them."""
    saved = structlog.get_config()
    structlog.reset_defaults()
    yield
    structlog.configure(**saved)


def test_nearest_ancestor_wins_and_bad_manifests_are_ignored(default_structlog: None) -> None:
    with capture_logs() as logs:
        idx = PackageIndex.from_manifests(
            [
                ("package.json", b'{"name": "root"}'),
                ("libraries/foo/package.json", b'{"name": "@scope/foo"}'),
                ("libraries/foo/src/nested/package.json", b"{ not json"),
                ("libraries/bar/package.json", b'{"version": "1.0.0"}'),
                ("libraries/baz/package.json", b'{"name": ""}'),
                ("libraries/qux/package.json", b'["name"]'),
                ("libraries/latin/package.json", b'{"name": "caf\xe9"}'),
            ]
        )
    assert idx.names == {"": {"npm": "root"}, "libraries/foo": {"npm": "@scope/foo"}}
    assert idx.lookup("libraries/foo/src/nested/deep/a.ts") == "@scope/foo"
    assert idx.lookup("libraries/foo/index.ts") == "@scope/foo"
    assert idx.lookup("libraries/bar/src/bar.ts") == "root"  # nameless: falls through
    assert idx.lookup("README.md") == "root" and idx.lookup("libraries/foobar/x.ts") == "root"
    events = [e["event"] for e in logs]
    assert events.count("packages.malformed") == 2 and events.count("packages.nameless") == 3
    assert all(e["log_level"] == "debug" for e in logs)


def test_no_package_applies() -> None:
    idx = PackageIndex.from_manifests([("apps/web/package.json", b'{"name": "web"}')])
    assert idx.lookup("apps/web/src/a.ts") == "web"
    assert idx.lookup("apps/x/a.ts") is None and idx.lookup("a.ts") is None
    assert PackageIndex({}).lookup("a/b.ts") is None


def test_from_working_dir_reads_files_but_not_links(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"name": "root"}))
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/package.json").write_text(json.dumps({"name": "@s/pkg"}))
    outside = tmp_path.parent / "outside.json"
    outside.write_text(json.dumps({"name": "stolen"}))
    (tmp_path / "linked").mkdir()
    (tmp_path / "linked/package.json").symlink_to(outside)
    idx = PackageIndex.from_working_dir(
        tmp_path, ["package.json", "pkg/package.json", "linked/package.json", "gone/package.json"]
    )
    assert idx.names == {"": {"npm": "root"}, "pkg": {"npm": "@s/pkg"}}


def test_is_manifest() -> None:
    assert is_manifest("package.json") and is_manifest("a/b/package.json")
    assert not is_manifest("a/mypackage.json") and not is_manifest("package.json5")
    assert is_manifest("crates/napi/Cargo.toml") and is_manifest("go.mod") and is_manifest("app/pom.xml")
    assert not is_manifest("crates/napi/Cargo.lock") and not is_manifest("a/cargo.toml")


MANIFESTS: dict[str, str] = {
    "crates/napi/Cargo.toml": '[package]\nname = "napi"\nversion = "3.0.0"\n',
    "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',  # names nothing: falls through
    "tools/py/pyproject.toml": '[project]\nname = "acme-tools"\n',
    "tools/legacy/setup.cfg": "[metadata]\nname = legacy-tools\nversion = 1\n",
    "tools/old/setup.py": "from setuptools import setup\nsetup(\n    name='old-tools',\n)\n",
    "tools/poetry/pyproject.toml": '[tool.poetry]\nname = "poetic"\n',
    "svc/go.mod": "module github.com/acme/svc\n\ngo 1.22\n",
    "android/settings.gradle.kts": 'rootProject.name = "acme-android"\ninclude(":app")\n',
    "android/app/build.gradle.kts": 'plugins { id("com.android.application") }\n',
    "jvm/pom.xml": (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><parent><artifactId>parent</artifactId>'
        "</parent><artifactId>acme-jvm</artifactId></project>"
    ),
    "ios/Package.swift": 'let package = Package(\n    name: "AcmeKit",\n    products: []\n)\n',
    "examples/napi/Cargo.toml": '[package]\nname = "napi-examples"\n',
    "examples/napi/package.json": '{"name": "@examples/napi"}',
    "broken/Cargo.toml": "[package\nname =",
}


@pytest.mark.parametrize(
    ("path", "package"),
    [
        ("crates/napi/src/lib.rs", "napi"),
        ("crates/other/src/lib.rs", None),  # the workspace root names no package
        ("tools/py/acme/cli.py", "acme-tools"),
        ("tools/legacy/legacy/__init__.py", "legacy-tools"),
        ("tools/old/old.py", "old-tools"),
        ("tools/poetry/poetic/x.py", "poetic"),
        ("svc/cmd/main.go", "github.com/acme/svc"),
        ("android/app/src/main/java/Main.kt", "app"),  # a Gradle project is named after its folder
        ("android/build-logic/x.kt", "acme-android"),
        ("jvm/src/main/java/A.java", "acme-jvm"),  # its own artifactId, not its parent's
        ("ios/Sources/AcmeKit/Kit.swift", "AcmeKit"),
        # one folder, two ecosystems: each file takes its own, others package.json
        ("examples/napi/src/lib.rs", "napi-examples"),
        ("examples/napi/Cargo.toml", "napi-examples"),
        ("examples/napi/index.ts", "@examples/napi"),
        ("examples/napi/README.md", "@examples/napi"),
        ("broken/src/lib.rs", None),
    ],
)
def test_every_ecosystem_names_its_packages(path: str, package: str | None) -> None:
    idx = PackageIndex.from_manifests((p, c.encode()) for p, c in MANIFESTS.items())
    assert idx.lookup(path) == package
