"""Upkeep: garbage collection, verification and repair, removing labels."""
