"""A translated module's file in the language a question names (else the source language) stands
for its folder, end to end on a real index (issue 34): zod's `locales/` holds 47 translations of
one module, and "where do the default English error messages come from" listed `el.ts` first
with `en.ts` in neither list's pool, so nothing could stand in for the folder."""

from __future__ import annotations

import pytest
from monodex.indexer.translations import copies

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json")
LOC = "src/locales"

# Every translation says what it is in the question's words; the English original holds only its
# messages, so the lists rank each of the others above it.
TRANSLATION = """// error messages: the default error messages of the {code} locale, where they come from
// and how they become the messages every failed check reports in the {code} language
export const messages{code} = {{
  invalid_type: "{code} tipo invalido {code}",
  too_small: "{code} troppo piccolo {code}",
  too_big: "{code} troppo grande {code}",
}};
"""
ENGLISH = """export default {
  invalid_type: "Invalid input",
  too_small: "Too small",
  too_big: "Too big",
};
"""


def _repo() -> dict[str, str]:
    codes = sorted(copies._ISO_639_1 - {"en"})[:150]
    files = {f"{LOC}/{code}.ts": TRANSLATION.format(code=code) for code in codes}
    files[f"{LOC}/en.ts"] = ENGLISH
    files["src/checks.ts"] = "export function check(value: unknown): boolean {\n  return value != null;\n}\n"
    return files


@pytest.mark.parametrize(
    ("text", "standing"),
    [
        ("where do the default English error messages come from", "en"),
        ("where do the error messages of each locale come from", "en"),  # the source language
        ("where do the German error messages come from", "de"),
    ],
)
def test_the_named_languages_file_stands_for_its_folder_though_no_list_ranked_it(  # type: ignore[no-untyped-def]
    crawl_files, run_json, text: str, standing: str
) -> None:
    crawl_files(_repo())
    code, found, err = run_json(*SEARCH, "--text", text, "--limit", "5", "--explain")
    assert code == 0, err
    first = found["results"][0]
    assert first["relative_path"] == f"{LOC}/{standing}.ts", [r["relative_path"] for r in found["results"]]
    assert len(first["also"]) >= 3  # the translations it stands for, folded under it
    if standing == "en":  # what the test is about: neither list ranked the English file
        assert (first["explain"]["dense_rank"], first["explain"]["lexical_rank"]) == (None, None)
    # it takes the best translation's place and its score: scores still fall down the list, and a
    # stand-in below the first five is not sunk by the history's re-ordering (it orders by score)
    scores = [r["score"] for r in found["results"]]
    assert first["score"] > 0 and scores == sorted(scores, reverse=True), scores
    stands = [m for m in first["explain"]["signals"] if m["signal"] == "stand-in"]
    # the English file, which neither list ranked, always stands in for a better one; the German
    # one is at times the best of its folder itself (the model's approximate search varies), and
    # then takes nobody's score
    assert len(stands) == 1 if standing == "en" else len(stands) <= 1, stands
    for stand in stands:
        assert stand["why"].startswith(f"stands for {LOC}/") and stand["why"].endswith(", the best of its folder")
    # one slot for the whole folder, in lexical mode too
    code, found, err = run_json(*SEARCH, "--text", text, "--limit", "5", "--mode", "lexical")
    assert code == 0, err
    paths = [r["relative_path"] for r in found["results"]]
    assert paths[0] == f"{LOC}/{standing}.ts", paths
    assert sum(p.startswith(f"{LOC}/") for p in paths) == 1, paths
