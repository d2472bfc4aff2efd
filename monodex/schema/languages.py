"""The language a file is written in, from its suffix: the one table the chunkers (which strategy
`monodex chunk FILE` uses), the points (the `lang` payload `--lang` filters on) and the requests
(the `--lang` vocabulary) read. Stdlib only: the CLI and the search path read it without loading
a chunker or a grammar."""

from __future__ import annotations

# In the order `monodex search --help` lists the languages.
SUFFIXES = {
    **dict.fromkeys((".ts", ".tsx", ".mts", ".cts"), "typescript"),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs"), "javascript"),
    **dict.fromkeys((".md", ".mdx"), "markdown"),
    **dict.fromkeys((".json", ".jsonc"), "json"),
    **dict.fromkeys((".yaml", ".yml"), "yaml"),
    ".toml": "toml",
    **dict.fromkeys((".py", ".pyi"), "python"),
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    **dict.fromkeys((".kt", ".kts"), "kotlin"),
    ".swift": "swift",
    # C++ headers parse with the C grammar well enough; a crawl policy may say "cpp"
    **dict.fromkeys((".c", ".h"), "c"),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"), "cpp"),
    **dict.fromkeys((".inl", ".ipp", ".tpp", ".txx", ".tcc"), "cpp"),  # template definitions
    ".cs": "csharp",
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh"), "shell"),
}
LANGUAGES = tuple(dict.fromkeys(SUFFIXES.values()))


def suffix_of(file_name: str) -> str:
    """The file's last extension, lowercased, with its dot (`.ts`); "" for none. A dotfile's
    name is no extension: `.editorconfig` and `.prettierrc` are no languages (`--lang`)."""
    name = file_name.rsplit("/", 1)[-1].lower().lstrip(".")
    return "." + name.rsplit(".", 1)[-1] if "." in name else ""


def language_of(file_name: str) -> str | None:
    """The language of a file name or path by its suffix, None for a suffix not in the table."""
    return SUFFIXES.get(suffix_of(file_name))


# Git's hook names (githooks(5); `update` left out, too common a name): a file so named is a shell
# script even without a `#!` line, as husky writes them (pnpm's `.husky/commit-msg`).
GIT_HOOKS = frozenset(
    (
        *"applypatch-msg pre-applypatch post-applypatch pre-commit pre-merge-commit".split(),
        *"prepare-commit-msg commit-msg post-commit pre-rebase post-checkout post-merge pre-push".split(),
        *"pre-receive proc-receive post-receive post-update reference-transaction".split(),
        *"push-to-checkout pre-auto-gc post-rewrite sendemail-validate post-index-change".split(),
    )
)


def is_git_hook(path: str) -> bool:
    """A file named as a git hook (`.husky/commit-msg`, `common/git-hooks/pre-commit`)."""
    return path.rsplit("/", 1)[-1] in GIT_HOOKS
