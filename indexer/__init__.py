"""indexer"""
