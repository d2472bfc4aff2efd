"""Reading git and planning: what a label should hold at a commit or in a work tree."""
