"""The indexer's two doors, typed both ways (monodex/schema/): answers.py answers the front's
requests (monodex/requests/) and search.py is the one that answers a search; background.py is
what the runner's jobs ask. The CLI and MCP run the front's in-process when no runner is up; the
runner runs the same functions for its socket clients, so every path gives the same answers.

Indexer modules are imported per operation: listing labels (what `monodex status` asks when the
runner is down) must not load git, tree-sitter or the model."""
