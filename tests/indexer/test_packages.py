from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
from monodex.indexer.git.packages import PackageIndex, is_manifest
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
    assert idx.names == {"": "root", "libraries/foo": "@scope/foo"}
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
    assert idx.names == {"": "root", "pkg": "@s/pkg"}


def test_is_manifest() -> None:
    assert is_manifest("package.json") and is_manifest("a/b/package.json")
    assert not is_manifest("a/mypackage.json") and not is_manifest("package.json5")
