"""What a search says when it finds nothing for a reason the user can act on (issue 15)."""

from __future__ import annotations

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--text", "load the configuration")


def test_filters_the_label_cannot_match_name_what_it_holds(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run_json(*SEARCH, "--lang", "python")
    assert code == 2 and "no python files" in err and "json, markdown, typescript" in err
    code, _, err = run_json(*SEARCH, "--package", "@acme/nett")
    assert code == 2 and "'@acme/nett'" in err and "did you mean @acme/net" in err
    code, found, err = run_json(*SEARCH, "--package", "@acme/net", "--path", "README.md", "--json")
    assert code == 0 and found["results"] == [], err  # both exist: nothing matches both, no error


def test_a_budget_too_small_for_any_hit_says_what_was_left_out(crawled, run_json) -> None:  # type: ignore[no-untyped-def]
    code, text, err = run_json(*SEARCH, "--max-tokens", "1")
    assert code == 0, err
    assert "No results." not in text
    assert "nothing fits in 1 tokens" in text and "left out" in text and "ConfigLoader.ts" in text


def test_chunk_says_when_the_budget_is_capped(tmp_path, run_json) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "a.ts"
    source.write_text("export const a = 1;\n")
    code, out, _ = run_json("chunk", str(source), "--max-tokens", "8192", "--json")
    assert code == 0 and out["budget"] == 6000 and "capped at 6000 bytes" in out["notes"][0]
    code, text, _ = run_json("chunk", str(source), "--max-tokens", "8192")
    assert "capped at 6000 bytes" in text and "--budget" in text
    code, out, _ = run_json("chunk", str(source), "--max-tokens", "256", "--json")
    assert code == 0 and out["notes"] == []


def test_a_settings_dotfile_is_no_language_the_label_holds(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    """`.editorconfig` and `.prettierrc` were listed as languages (`editorconfig`, `prettierrc`)."""
    crawl_files(
        {
            ".editorconfig": "root = true\n[*]\nend_of_line = lf\n",
            ".prettierrc": '{"semi": false}\n',
            "src/main.ts": "export function loadConfiguration(): string { return 'x'; }\n",
        }
    )
    code, _, err = run_json(*SEARCH, "--lang", "python")
    assert code == 2 and "no python files" in err and "it has: text, typescript" in err, err
