"""monodex: a self-updating semantic code search index for git monorepos."""

from __future__ import annotations

__version__ = "0.1.0"
