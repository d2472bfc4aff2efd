"""Measuring search on one label (`monodex eval`): questions from the repository's own history or
from a file, each ranked in every mode and by a plain BM25 over the same files, scored over
distinct files at 10."""
