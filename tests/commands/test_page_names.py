"""A guide answers a question in its words and names the API that does it: the declaration of a
name the guide spells as code joins the answers though it says none of the question's words
(issue 34: zustand's `useShallow`, named by `prevent-rerenders-with-use-shallow.md`)."""

from __future__ import annotations

from monodex.indexer.read import pagenames

SEARCH = ("search", "--catalog", "acme", "--label", "main", "--json", "--explain")
QUESTION = "avoid a rerender when the selector returns a new object"

GUIDE = """# Prevent rerenders when a selector returns a new object

When the selector returns a new object on every call, the component will rerender on every
update, because a new object is never equal to the last one. To avoid the rerender, wrap the
selector with `useShallow`: it keeps the last object while its keys are equal.
"""
# says none of the question's words: only its name ties it to the guide
SHALLOW = """import { useRef } from 'react'
import { isEqualByKeys } from './compare'

export function useShallow<S, U>(pick: (s: S) => U): (s: S) => U {
  const last = useRef<U>()
  return (s) => {
    const next = pick(s)
    return isEqualByKeys(last.current, next) ? (last.current as U) : (last.current = next)
  }
}
"""
# some of the question's words, in code that is not the answer
WIDGET = """// Widget {n}: the selector picks this row's object out of the state.
export function widget{n}(selector: (s: State) => Row, state: State): string {{
  const row = selector(state)
  return `<li>${{row.title}} ({n})</li>`
}}
"""


def _repo() -> dict[str, str]:
    files = {
        "package.json": '{"name": "acme"}\n',
        "docs/guides/prevent-rerenders.md": GUIDE,
        "src/react/shallow.ts": SHALLOW,
        "src/react/compare.ts": "export const isEqualByKeys = (a: unknown, b: unknown) => a === b\n",
    }
    files |= {f"src/widgets/widget{n}.ts": WIDGET.format(n=n) for n in range(8)}
    return files


def test_the_declaration_of_the_name_a_guide_spells_gains_the_guide_s_share(
    crawl_files, lifted, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    crawl_files(_repo())
    guide, moved = lifted(QUESTION, "docs/guides/prevent-rerenders.md", "src/react/shallow.ts")
    assert moved["page-names"]["why"] == "docs/guides/prevent-rerenders.md names useShallow"
    # the guide's share on top of its own score; what the share does to the places is measured
    # over real repositories (docs/benchmarks.md)
    assert moved["page-names"]["change"] == round(pagenames.WEIGHT * guide, 6) > 0
    monkeypatch.setattr(pagenames, "WEIGHT", 0.0)
    _, moved = lifted(QUESTION, "docs/guides/prevent-rerenders.md", "src/react/shallow.ts")
    assert "page-names" not in moved


def test_a_name_alone_is_its_own_declaration_not_a_page_s(crawl_files, run_json) -> None:  # type: ignore[no-untyped-def]
    """A one-name question reads no page for names: the definition signal answers it."""
    crawl_files(_repo())
    code, found, err = run_json(*SEARCH, "--text", "useShallow", "--limit", "5")
    assert code == 0, err
    assert found["results"][0]["relative_path"] == "src/react/shallow.ts"
    assert all(m["signal"] != "page-names" for r in found["results"] for m in r["explain"]["signals"])


def test_the_names_of_a_page_are_its_code_spans_less_the_language_s_words() -> None:
    text = "Call `store.setState()`, then `useShallow` or `Config::from_env`; `true`, `x` and `useShallow` again."
    assert pagenames.names_in(text) == ["setState", "useShallow", "from_env"]
    assert pagenames.names_in("no code here, only `a b` words") == []
