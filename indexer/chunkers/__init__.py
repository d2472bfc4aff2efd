"""indexer/chunkers"""
