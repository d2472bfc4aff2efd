"""The front layer between the surfaces (CLI commands, MCP tools) and the indexer: requests are
built from monodex/requests/, run by route.py (the one socket-or-local decision), rendered by
render.py; status.py collects the status answer."""
