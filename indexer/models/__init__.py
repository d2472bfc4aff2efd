"""indexer/models"""
