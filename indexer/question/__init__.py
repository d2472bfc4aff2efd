"""What a question asks, read once before anything ranks (issue 34)."""
