"""What crosses monodex's boundaries, declared once: the answers each operation returns (the CLI's
`--json` and the MCP tools' structured output, DESIGN.md "CLI contract"), what a point stores
(payload.py) and the languages its `lang` key and `--lang` name (languages.py). TypedDicts,
because the JSON shape is the interface: an answer is built as a dict in the order it is printed,
and mypy checks every key on the way. A field's description (in its `Annotated` metadata) is what
the MCP tools' output schemas say about it (front/mcp_models.py).

Stdlib only: the kernel, the hooks and the CLI load it without the indexer."""
