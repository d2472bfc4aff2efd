"""Settings: config.json validated once into frozen dataclasses (config.py, with validate.py,
the small strict validator whose errors name the path and the fix), and the default catalog and
label `monodex use` writes with the rule for which ones a command answers for (context.py).
Stdlib only."""
