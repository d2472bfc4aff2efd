"""One branch, one label (issue 35, item 1): the mapping itself, a pure function over the branch
names and the claims, and the claims kept in a state file."""

from __future__ import annotations

from pathlib import Path

from monodex.labels import branchlabels
from monodex.labels.branchlabels import BranchLabels, plan


def test_a_branch_alone_keeps_todays_label() -> None:
    assert plan(["main", "feature/Login_Flow"], {}) == {
        "main": "main",
        "feature/Login_Flow": "feature/login-flow",
    }


def test_two_branches_that_map_alike_get_distinct_stable_labels() -> None:
    both = plan(["feature/Walk_One", "feature/walk-one"], {})
    assert both["feature/walk-one"] == "feature/walk-one"  # the exact spelling wins, unclaimed
    other = both["feature/Walk_One"]
    assert other.startswith("feature/walk-one-") and len(other) == len("feature/walk-one-") + 8
    assert plan(["feature/Walk_One", "feature/walk-one", "zzz"], {})["feature/Walk_One"] == other


def test_a_claim_outlives_a_rival_made_later() -> None:
    """The first branch given the label keeps it when a branch spelled like the label comes."""
    first = plan(["feature/Walk_One"], {})
    assert first == {"feature/Walk_One": "feature/walk-one"}
    later = plan(["feature/Walk_One", "feature/walk-one"], first)
    assert later["feature/Walk_One"] == "feature/walk-one"
    assert later["feature/walk-one"] != "feature/walk-one"


def test_a_branch_never_takes_a_detached_heads_label() -> None:
    label = plan(["commit/c1b3b4108b96"], {})["commit/c1b3b4108b96"]
    assert label != "commit/c1b3b4108b96" and label.startswith("commit/c1b3b4108b96-")
    from monodex.labels import standing

    assert standing.commit_of_label(label) is None  # never read as a commit


def test_labels_are_injective_valid_and_within_the_length_limit() -> None:
    from monodex import names

    long = "x" * 125  # its hashed twin must be cut to fit 128
    branches = ["a/B", "a/b", "A/b", "A_B", "a-b", long, long.upper(), "commit/abc1234"]
    found = plan(branches, {})
    assert len(set(found.values())) == len(found) == len(branches)
    for label in found.values():
        assert names.validate_label(label) == label


def test_a_hashed_label_never_takes_another_branchs_name() -> None:
    """A branch named like another's hashed label keeps its own name; the other hashes longer."""
    hashed = plan(["a/b", "A/B"], {})["A/B"]
    found = plan(["a/b", "A/B", hashed], {})
    assert found[hashed] == hashed and found["A/B"] != hashed and len(set(found.values())) == 3


def test_claims_survive_in_the_state_file_and_go_with_the_label(tmp_path: Path) -> None:
    state = tmp_path / "state"
    assert branchlabels.claim(state, "acme", "feature/Walk_One", ["feature/Walk_One"]) == "feature/walk-one"
    heads = ["feature/Walk_One", "feature/walk-one"]
    owners = branchlabels.load(state, "acme", heads)  # another process, later
    assert owners.label("feature/Walk_One") == "feature/walk-one"
    assert owners.branch("feature/walk-one") == "feature/Walk_One"
    assert owners.label("feature/walk-one") != "feature/walk-one"
    branchlabels.release(state, "acme", "feature/walk-one")  # its branch went, then its label
    assert (
        branchlabels.load(state, "acme", ["feature/walk-one"]).label("feature/walk-one") == "feature/walk-one"
    )


def test_settle_keeps_a_label_with_the_branch_it_was_refreshed_from(tmp_path: Path) -> None:
    """A label indexed before claims existed stays with its branch when a rival spelled like it
    exists (the rule alone would give it to the rival)."""
    heads = ["Feature/X", "feature/x"]
    owners = branchlabels.settle(tmp_path, "acme", heads, {"feature/x": "Feature/X"})
    assert owners.branch("feature/x") == "Feature/X"
    assert BranchLabels(heads, branchlabels.assigned(tmp_path, "acme")).label("feature/x") != "feature/x"
    # a claim of a branch gone whose label is gone too is forgotten
    owners = branchlabels.settle(tmp_path, "acme", ["feature/x"], {})
    assert owners.label("feature/x") == "feature/x"
