from __future__ import annotations

from monodex.main import main

raise SystemExit(main())
