"""How every other part reaches the runner (monodex.scheduler): its queue, a directory of
label-refresh requests the hooks write (spool.py), its unix socket (rpc.py), and whether it is
alive (runnerpid.py). Stdlib only: the hook path and the CLI load it without the runner's
dependencies."""
