"""The delivery axis: every law runs once per way a reply can reach the runtime.

Streamed and whole replies are separate code paths in every SDK and runtime (a runtime
that assembles deltas wrongly, or whose non-streaming branch never ran, breaks laws the
other path keeps), so, like dialects, each delivery the implementation offers is a
parametrization of every law test. A delivery asked for by name that the implementation
does not offer is NOT_APPLICABLE, shown, never silently dropped.
"""

from __future__ import annotations

import pytest

from ..adapter import Delivery, Implementation

DEFAULT_DELIVERIES = frozenset({Delivery.STREAM})
"""An implementation that declares no `deliveries`: it streams, as the spec's default
asks (and as it did before the axis existed)."""


def offered_deliveries(implementation: Implementation) -> frozenset[Delivery]:
    """What the implementation declares it honours of `AgentSpec.stream`."""
    declared = getattr(implementation, "deliveries", DEFAULT_DELIVERIES)
    return frozenset(Delivery(str(d)) for d in declared)


def asked_deliveries(option: str) -> frozenset[Delivery] | None:
    """`--deliveries`: None for `all` (every delivery the implementation offers), else
    the deliveries it names (a UsageError for a name that is none, or for naming nothing)."""
    if option.strip() == "all":
        return None
    names = [name.strip() for name in option.split(",") if name.strip()]
    known = ", ".join(d.value for d in Delivery)
    if not names:
        raise pytest.UsageError(f"--deliveries {option!r} names no delivery; known: all, {known}")
    unknown = [name for name in names if name not in {d.value for d in Delivery}]
    if unknown:
        raise pytest.UsageError(
            f"--deliveries: unknown delivery {unknown[0]!r}; known: all, {known}"
        )
    return frozenset(Delivery(name) for name in names)


def deliveries_to_run(
    implementation: Implementation, wanted: frozenset[Delivery] | None
) -> list[Delivery]:
    """The deliveries every law is parametrized over: all it offers, or those asked for
    (offered or not: an unoffered one is then NOT_APPLICABLE, see `not_offered`)."""
    offered = offered_deliveries(implementation)
    return [d for d in Delivery if (d in offered if wanted is None else d in wanted)]


def not_offered(implementation: Implementation, delivery: Delivery) -> str | None:
    """Why a test in `delivery` is NOT_APPLICABLE, in words, or None when it runs."""
    if delivery in offered_deliveries(implementation):
        return None
    words = {Delivery.STREAM: "streamed replies", Delivery.WHOLE: "whole (non-streamed) replies"}
    return f"the implementation does not offer {words[delivery]} (delivery {delivery.value!r})"


__all__ = [
    "DEFAULT_DELIVERIES",
    "asked_deliveries",
    "deliveries_to_run",
    "not_offered",
    "offered_deliveries",
]
