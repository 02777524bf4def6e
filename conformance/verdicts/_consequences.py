"""One root cause reads as one: a law's failure that may only follow from another's.

A law's tests rest on other laws (`assumes` in laws.toml, and the law a failed premise
named). When one of those failed in the same run, this law's FAIL, known failure or
premise ERROR is "possibly a consequence of" it: the report and the matrix say so, so a
reader starts with the root and does not count one bug as several. "Possibly", because
the law may be broken on its own too; its verdict is unchanged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

from ..registry import load_laws
from ._outcomes import Outcome, TestRecord

FAILED = (Outcome.FAIL, Outcome.XFAIL)
"""What a root cause's own outcome is: it failed, expected or not."""


def root_causes(
    outcomes: Mapping[str, Outcome], records: Iterable[TestRecord]
) -> dict[str, list[str]]:
    """law id -> the laws it rests on that failed too, for each law whose FAIL, XFAIL or
    premise ERROR they may explain (in registry order; laws without one are left out)."""
    laws = load_laws()
    premises: dict[str, set[str]] = defaultdict(set)
    for record in records:
        if record.premise is not None:
            premises[record.law].add(record.premise)
    found: dict[str, list[str]] = {}
    for law_id, outcome in outcomes.items():
        if outcome not in FAILED and not (outcome is Outcome.ERROR and premises[law_id]):
            continue
        rests_on = set(laws[law_id].assumes if law_id in laws else ()) | premises[law_id]
        causes = [
            other
            for other in laws
            if other in rests_on and other != law_id and outcomes.get(other) in FAILED
        ]
        if causes:
            found[law_id] = causes
    return found


def consequence_note(causes: list[str]) -> str:
    """How a report says it: `possibly a consequence of run.no-history`."""
    return "possibly a consequence of " + ", ".join(causes) if causes else ""


__all__ = ["consequence_note", "root_causes"]


def known_premise_note(premise: str, reason: str) -> str:
    """How a report says a test stopped on another law's known failure: `premise not met:
    run.no-history, a known failure: <the manifest's reason>`."""
    return f"premise not met: {premise}, a known failure: {reason}"
