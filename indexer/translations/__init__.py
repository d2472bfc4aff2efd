"""Copies of one text in several languages: translated pages and translated modules (issue 34)."""
