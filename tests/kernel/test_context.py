from __future__ import annotations

import json

import pytest

from monodex.disk import paths
from monodex.errors import UsageError
from monodex.main import main
from monodex.settings import context


@pytest.fixture
def registered(git_repo) -> None:  # type: ignore[no-untyped-def]
    repo = git_repo({"a.ts": "x"})
    assert main(["catalog", "add", "web", str(repo.path)]) == 0


def test_use_writes_context_under_xdg_config(registered: None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["use", "--catalog", "web", "--label", "main"]) == 0
    data = json.loads(paths.resolve().context_file.read_text())
    assert (data["catalog"], data["label"]) == ("web", "main")
    assert str(paths.resolve().context_file).startswith(str(paths.resolve().config_dir))
    capsys.readouterr()
    assert main(["use", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"catalog": "web", "label": "main"}


def test_flags_override_context(registered: None) -> None:
    context.save(paths.resolve(), catalog="web", label="main")
    assert context.catalog_and_label(paths.resolve(), None, None) == ("web", "main")
    assert context.catalog_and_label(paths.resolve(), None, "feature/x") == ("web", "feature/x")
    assert context.catalog_and_label(paths.resolve(), "other", "dev") == ("other", "dev")


def test_missing_context_names_monodex_use() -> None:
    with pytest.raises(UsageError) as info:
        context.catalog_and_label(paths.resolve(), None, None)
    assert "monodex use" in info.value.hint


def test_use_rejects_unknown_catalog_and_half_flags(
    registered: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["use", "--catalog", "nope", "--label", "main"]) == 2
    assert "monodex catalog add nope" in capsys.readouterr().err
    assert main(["use", "--catalog", "web"]) == 2
    assert main(["use", "--catalog", "web", "--label", "Bad:Label"]) == 2
    assert not paths.resolve().context_file.exists()


def test_a_missing_catalog_is_named_as_each_surface_spells_it() -> None:
    """Issue 13: the CLI says --catalog, an MCP client (which has no flags) says catalog."""
    from monodex.commands.common import flag
    from monodex.requests import FieldError

    with pytest.raises(FieldError) as caught:
        context.catalog_and_label(paths.resolve(), None, None)
    cli = caught.value.spelled(flag)
    mcp = caught.value.spelled(lambda field: field, joiner="=")
    assert cli.problem.startswith("no --catalog given (nor the label)") and "pass --catalog" in cli.hint
    assert mcp.problem.startswith("no catalog given (nor the label)") and "--catalog given" not in mcp.problem
