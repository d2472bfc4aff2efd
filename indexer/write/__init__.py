"""Writing labels: crawls, incremental refreshes, membership, phase two."""
