"""The hosting capabilities are read back from a NOT_APPLICABLE reason, as every other
capability is, so the matrix shows a hosting law N/A with what it needs."""

from __future__ import annotations

import pytest

from conformance.adapter import Capability
from conformance.verdicts import (
    NOT_APPLICABLE_PREFIX,
    Outcome,
    needed_capabilities,
    needs_sentence,
    not_applicable_in_words,
)
from conformance.verdicts.matrix import _cell

HOSTING = [c.value for c in Capability if c.value.startswith("hosting")]


def test_the_hosting_capabilities_are_the_hosts() -> None:
    assert HOSTING == [
        "hosting",
        "hosting_enqueue",
        "hosting_factory",
        "hosting_identity",
        "hosting_damage",
    ]


@pytest.mark.parametrize("capability", HOSTING)
def test_a_hosting_capability_is_read_back_from_its_skip(capability: str) -> None:
    law_skip = f"Skipped: {NOT_APPLICABLE_PREFIX}hosting.x {needs_sentence([capability])}"
    fixture_skip = f"Skipped: {NOT_APPLICABLE_PREFIX}this host {needs_sentence([capability])}"
    for said in (law_skip, fixture_skip):
        assert needed_capabilities(said) == [capability]
        assert _cell(Outcome.NOT_APPLICABLE, said, "").reason == f"needs {capability}"
    assert not_applicable_in_words(law_skip) == needs_sentence([capability])
