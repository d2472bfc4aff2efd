"""Observing monodex at work: results on stdout (output.py, the only way out for them),
diagnostics through structlog on stderr (logs.py, logrotate.py bounding its files), progress
lines, and what a crawl running now reports about itself (crawlstate.py, rss.py). Stdlib and
structlog only."""
