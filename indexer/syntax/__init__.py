"""Parsed syntax: tree-sitter grammars (their one importer), a line-indexed view of a parsed
tree, and what each language's node types mean to the partitioner (its vocabulary)."""
