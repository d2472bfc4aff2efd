"""Writing labels: crawls, incremental refreshes, membership, and making a label fresh."""
