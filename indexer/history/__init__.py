"""A catalog's history, for the co-change signal (issue 14): which files each commit changed
(changed.py, through monodex/git/log.py), counted per catalog in SQLite (cochanges.py), and kept
current by every crawl and refresh (catchup.py). The ranking that reads the counts is
rank/cochange.py; the evaluation's questions from history are evaluate/'s."""
