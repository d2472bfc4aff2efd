"""Files on disk: where monodex keeps each thing (paths.py, the one reader of XDG_* and HOME),
small JSON documents written atomically, free space before the index writes, whether a folder is
writable, and a checkout's files read by their path, never through a link. Stdlib only."""
