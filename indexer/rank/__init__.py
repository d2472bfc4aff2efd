"""Ranking: the signals that move hits, the order of the results (issues 14, 34)."""
