"""indexer/store"""
