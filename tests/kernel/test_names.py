from __future__ import annotations

import pytest

from monodex.errors import UsageError
from monodex.names import label_id, validate_catalog, validate_label


@pytest.mark.parametrize("name", ["rushstack", "a", "web-app", "x1-2y", "a" * 64])
def test_valid_catalogs(name: str) -> None:
    assert validate_catalog(name) == name


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("", "must not be empty"),
        ("a" * 65, "the limit is 64"),
        ("Rush", "only a-z"),
        ("web--app", "only a-z"),
        ("-web", "only a-z"),
        ("web-", "only a-z"),
        ("web.app", "only a-z"),
        ("web:app", "':' is reserved"),
        ("web@app", "'@' is reserved"),
        ("web+app", "'+' is reserved"),
        ("web#app", "'#' is reserved"),
        ("web app", "whitespace"),
        ("web\tapp", "whitespace"),
        ("web\x01app", "control characters"),
    ],
)
def test_invalid_catalogs_name_the_rule(name: str, rule: str) -> None:
    with pytest.raises(UsageError) as info:
        validate_catalog(name)
    assert rule in info.value.problem
    assert info.value.hint


@pytest.mark.parametrize(
    "name",
    ["main", "feature/login-flow", "release/1.2.3", "v1.0", "a=b", "x" * 128, "a/b/c", "pr-12"],
)
def test_valid_labels(name: str) -> None:
    assert validate_label(name) == name


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("", "must not be empty"),
        ("x" * 129, "the limit is 128"),
        ("Main", "only a-z"),
        ("feature//x", "only a-z"),
        ("/main", "only a-z"),
        ("main/", "only a-z"),
        ("feature_x", "only a-z"),
        ("a:b", "':' is reserved"),
        ("a@b", "'@' is reserved"),
        ("a+b", "'+' is reserved"),
        ("a#b", "'#' is reserved"),
        ("a b", "whitespace"),
        ("a\nb", "whitespace"),
        ("a\x7fb", "control characters"),
    ],
)
def test_invalid_labels_name_the_rule(name: str, rule: str) -> None:
    with pytest.raises(UsageError) as info:
        validate_label(name)
    assert rule in info.value.problem


def test_equals_sign_is_kept_literally() -> None:
    assert label_id("rushstack", "pr=12") == "rushstack:pr=12"
