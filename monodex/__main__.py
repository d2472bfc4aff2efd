from __future__ import annotations

from monodex.main import cli

cli()
