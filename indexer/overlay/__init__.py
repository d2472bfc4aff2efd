"""A worktree's uncommitted files laid over its branch's label for a search (DESIGN.md "overlay")."""
