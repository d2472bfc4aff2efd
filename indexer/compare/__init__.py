"""Questions across labels: which labels hold a chunk or file, and what changed between two."""
