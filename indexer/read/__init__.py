"""Reading the index: search, ranking, filter hints and token budgets."""
