"""How a hosting law judges a reply: by the outcome it says, never by its bytes.

A law asks for the outcome the seed gives the request (`assert_said(reply, HostOutcome.BUSY,
what=...)`). The seed fixes whether a host answers, pauses, refuses or fails; which
refusal or failure it names, and with which status or code, is the host's own, so a
reply of the same kind as the one asked for passes and the difference is noted as
information (outside the score). A reply of another kind is the law's FAIL; one its
wire profile cannot classify at all is the host's FAIL too, with the reply shown.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..adapter import HostOutcome
from ._reply import HostReply, NotTheWire

UNANSWERED = frozenset(said for said in HostOutcome if said.kind in ("refused", "failed"))
"""Every outcome that is neither an answer nor a pause: what a law whose core is "it was
not answered" accepts, the outcome named being the host's own."""


def refused(reply: HostReply) -> bool:
    """The host refused the request (any refusal its profile names)."""
    return any(said.kind == "refused" for said in reply.said)


def assert_said(
    reply: HostReply, *wanted: HostOutcome, what: str, core: Iterable[HostOutcome] | None = None
) -> None:
    """`reply` says one of `wanted`, or (noted) another outcome of `core`: by default
    every outcome of the same kind (answered, paused, refused, failed) as a wanted one."""
    if not reply.said:
        raise NotTheWire(f"{what}: its wire profile does not classify it", reply.evidence)
    if reply.said & set(wanted):
        return
    kinds = {said.kind for said in wanted}
    accepted = set(core) if core is not None else {s for s in HostOutcome if s.kind in kinds}
    asked = " or ".join(said.words for said in wanted)
    if reply.said & accepted:
        if reply.note is not None:
            said = " / ".join(sorted(s.words for s in reply.said))
            reply.note(f"{what}: the host said {said!r} where the suite expected {asked!r}")
        return
    raise AssertionError(f"{what} was {reply.shown}, not {asked}")


def describe(reply: HostReply) -> str:
    """The reply in a law's message: what it said, and for an answer its text."""
    if reply.answered:
        return f"answered {reply.output!r}"
    return reply.shown
