"""Whether a label reflects the code: every search answer says so, and `--fresh` waits for it.

An agent reading results must know if they describe the commit it is looking at. A label tracks
the local branch whose name maps to it; it is fresh when its last complete crawl is that branch's
current commit. A refresh is pending while the spool holds a request for the label or the label
is marked in progress. A read: bringing the label to its branch is follow/refresh.py's.
"""

from __future__ import annotations

from monodex.indexer.points import labelmeta
from monodex.indexer.points.labelmeta import LabelState
from monodex.indexer.session import Session

from monodex import names
from monodex.git.refs import branch_heads, unreadable
from monodex.labels import branchlabels
from monodex.runner import spool
from monodex.schema.payload import Key
from monodex.schema.search import BranchGone, Freshness
from monodex.settings.config import Catalog


def describe(
    s: Session, catalog: Catalog, state: LabelState, *, heads: dict[str, str] | None = None
) -> Freshness:
    """{indexed_commit, complete, source_kind, branch, branch_commit, fresh, refresh_pending}.

    fresh is None when there is no branch to compare with (a working-directory label, a label
    named after no branch). `heads`: the catalog's branch heads when already read (a search of
    many labels reads them once, not once a label)."""
    pending = spool.default(s.paths.state_dir).requests_for(names.label_id(catalog.name, state.label))
    out = Freshness(
        indexed_commit=state.commit_oid or None,
        complete=state.crawl_complete,
        source_kind=state.source_kind,
        branch=None,
        branch_commit=None,
        fresh=None,
        refresh_pending=bool(pending) or not state.crawl_complete,
    )
    failed = [r for r in pending if r.last_error]
    if failed:
        out["refresh_error"] = failed[-1].last_error
    if state.source_kind != "git-commit":
        return out
    heads = heads if heads is not None else branch_heads(catalog.path)
    if heads is None:
        out["problem"], out["hint"] = unreadable(catalog.name, catalog.path)
        return out
    branch = branchlabels.load(s.paths.state_dir, catalog.name, heads).branch(state.label)
    if branch is None:
        if state.extra.get(Key.BRANCH):  # it had one: deleted (upkeep/branches.py)
            since = labelmeta.branch_deleted_at(state) or None
            out["branch_gone"] = BranchGone(branch=state.extra[Key.BRANCH], since=since)
        return out
    head = heads.get(branch)
    fresh = names.is_fresh(complete=state.crawl_complete, indexed_commit=state.commit_oid, branch_commit=head)
    out["branch"], out["branch_commit"], out["fresh"] = branch, head, bool(fresh)
    return out
