"""What a change of crawl policy or chunkers touches, so the refresh after it stays incremental.

A label records the policy and the implementation (embedder, every chunker's id, the file-id
scheme) it was crawled with. When only the policy or some chunkers changed, the files whose
fate changed are known without reading anything: a path the old policy crawled and the new one
does not (or the other way round), a path whose strategy changed, a file of a strategy whose
chunker changed. The refresh adds those to the paths git says changed; every other file keeps
its chunks and is not even looked up. Anything that cannot be told this way (another embedder
or id scheme, another maxFileBytes, a policy the label did not record) means a full crawl,
which still re-embeds only files whose chunks are not stored.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from monodex.indexer.policy.attributes import Attributes
from monodex.indexer.policy.crawlpolicy import CrawlPolicy, parse, previous_builtin

from monodex.errors import UsageError
from monodex.schema.payload import Key

COMPARED = (Key.POLICY_FINGERPRINT, Key.IMPLEMENTATION)  # the facts a change of which this can follow


def recorded_policy(extra: dict[str, Any]) -> CrawlPolicy | None:
    """The policy a label was crawled with: recorded since issue 23, else recognised by its
    fingerprint when it was an earlier built-in one; None when unknown (a full crawl follows),
    as is one this build cannot read (written by a newer one). A recorded policy
    without `gitattributes` predates the .gitattributes markers: it did not heed them."""
    text = extra.get(Key.POLICY)
    if isinstance(text, str):
        try:
            raw = json.loads(text)
            return parse({"gitattributes": False, **raw} if isinstance(raw, dict) else raw, "recorded")
        except (ValueError, UsageError):  # a newer monodex's policy (a strategy this one lacks)
            return None
    return previous_builtin(str(extra.get(Key.POLICY_FINGERPRINT, "")))


def chunker_ids(implementation: str, names: dict[str, str]) -> tuple[str, str, dict[str, str]] | None:
    """(embedder id, id scheme, strategy -> chunker id) from an implementation id
    (`embedder;chunker...;scheme`); `names` maps a chunker id's first part to its strategy."""
    parts = implementation.split(";")
    if len(parts) < 3:
        return None
    by_strategy = {}
    for part in parts[1:-1]:
        strategy = names.get(part.split(":", 1)[0])
        if strategy is None:
            return None
        by_strategy[strategy] = part
    return parts[0], parts[-1], by_strategy


def affected_paths(
    paths: Iterable[str],
    *,
    old: CrawlPolicy,
    new: CrawlPolicy,
    changed_strategies: set[str],
    attrs: Attributes | None = None,
) -> set[str]:
    """The paths whose chunks a change from `old` to `new` policy (and of the chunkers of
    `changed_strategies`) may change; `attrs` are the commit's .gitattributes, which a policy
    heeds or not (CrawlPolicy.gitattributes)."""
    out = set()
    for path in paths:
        before = old.strategy_for(path) if old.should_crawl(path, attrs) else None
        after = new.strategy_for(path) if new.should_crawl(path, attrs) else None
        if before != after or (after is not None and after in changed_strategies):
            out.add(path)
    return out


def follow(
    extra: dict[str, Any],
    *,
    policy: CrawlPolicy,
    implementation: str,
    names: dict[str, str],
    paths: Iterable[str],
    attrs: Attributes | None = None,
) -> set[str] | None:
    """The paths to add to an incremental refresh of a label crawled with `extra`'s facts, or
    None when the change cannot be followed file by file (then: a full crawl)."""
    old_policy = recorded_policy(extra)
    was = chunker_ids(str(extra.get(Key.IMPLEMENTATION, "")), names)
    now = chunker_ids(implementation, names)
    if old_policy is None or was is None or now is None:
        return None
    if was[:2] != now[:2] or old_policy.max_file_bytes != policy.max_file_bytes:
        return None  # another embedder or id scheme; sizes: the plan would have to re-read them
    changed = {s for s in now[2] if was[2].get(s) != now[2][s]}
    return affected_paths(paths, old=old_policy, new=policy, changed_strategies=changed, attrs=attrs)
