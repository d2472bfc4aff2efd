"""What a commit's subject says it is: a routine change (a revert, a merge, a version or
dependency bump, a release) rather than one that asks for behaviour. `monodex eval` skips such
changes as questions (evaluate/questions.py); the history's window of recent changes leaves them
out (history/cochanges.py: a release that rewrites the changelog is not a change that edits it).
"""

from __future__ import annotations

import re

# First match wins: "Bump versions [skip ci]" is a version bump, "Update changelogs [skip ci]" a release.
_SKIPS = (
    ("revert", r"^revert\b"),
    ("merge", r"^merge (branch|remote-tracking branch|tag|commit)\b|^merge\b.*\binto\b"),
    (
        "version bump",
        r"^(bump|update|set)( the)?( package)? versions?\b|\bversion bump\b|^bump to v?\d"
        r"|^\w+(\([^)]*\))?!?: bump( the)? version"
        r"|^applying package updates\b",  # `rush publish --apply`'s commit before Rush 5
    ),
    (
        "dependency bump",
        r"^\w+\((deps|deps-dev|dev-deps|dependencies)\)|\bdependabot\b|\brenovate\b"
        r"|^(bump|update|upgrade)( the| all)? (deps|dependencies|dependency|dev-?dependencies|rust crate"
        r"|module|lock ?files?)\b|^bump \S+ from \S+ to \S|^lock ?file maintenance\b"
        r"|^(bump|update|upgrade)\b.* v?\d+\.\d+",  # "Upgrade to Rush 5.176.0"
    ),
    (
        "release",
        r"^\w+(\([^)]*\))?!?: (release|publish|prepare (for )?release)\b|^release(\([^)]*\))?:"
        r"|^(release|releasing|publish|published) v?\d|^(release|publish)$|^v?\d+\.\d+(\.\d+)?\S*$"
        r"|^version v?\d+\.\d+"  # httpx's "Version 0.28.1 (#3445)"
        r"|^version packages\b|\[(skip ci|ci skip)\]|^update changelogs?\b"
        r"|\bprepare\b.*\b(version|release|publish)\b"  # "chore: prepare next minor version"
        r"|^deleting change files\b"  # old Rush's "Deleting change files and updating change logs ..."
        r"|^apply version updates\b",  # covector's release PR: "Apply Version Updates From Current Changes"
    ),
)
SKIPS = tuple((reason, re.compile(pattern, re.IGNORECASE)) for reason, pattern in _SKIPS)


def routine(subject: str) -> str | None:
    """The kind of routine change `subject` names (`revert`, `merge`, `version bump`,
    `dependency bump`, `release`), None for a change that asks for behaviour."""
    text = subject.strip()
    return next((reason for reason, pattern in SKIPS if pattern.search(text)), None)
