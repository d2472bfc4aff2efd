"""Packages: the name a manifest declares (manifests.py) and which package a file belongs to
(lookup.py). Read by the plans of git/ (a commit's, a delta's, a working dir's), the overlay and
`monodex chunk`; it imports nothing of the indexer."""
