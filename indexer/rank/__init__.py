"""Ranking: what a question asks, the signals that move hits, the order of the results (issues 14, 34)."""
