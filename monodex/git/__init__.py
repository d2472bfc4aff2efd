"""Every question monodex asks git about a repository's refs, checkouts and history, in one place
(tests/test_layout.py keeps it so: nothing else runs `git` or reads a `.git` folder's files).

- files.py: git's layout on disk, read without starting a process: the git dirs, HEAD, one ref,
  the branch names, core.hooksPath. The hooks' path (they run inside `git commit`) and the other
  light readers (a catalog's common dir, a worktree's branch).
- refs.py: `git for-each-ref`, `rev-parse` and `worktree list`: where branches point (~3 ms on any
  repository), the default branch, a revision's commit, every checkout, where a folder stands.
- status.py: `git status`: a worktree's uncommitted files (git's stat cache: ~30 ms on 53,000 files).
- log.py: `git log`: the files each commit touched (the history signal, evaluation questions).

Git's objects (trees, blobs, their diffs) are read through dulwich by indexer/git/gitobjects.py,
its one importer: heavy to import, and only the indexer needs it. Stdlib only here."""
