"""Which label is which: a branch's label (branchlabels.py, one branch one label), the labels a
catalog indexed or had removed (known_labels.py, read by the hooks without the index), and
where a directory stands (standing.py: catalog, worktree, branch, commit). Names themselves are
monodex/names.py's. Stdlib only."""
