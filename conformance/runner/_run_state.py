"""What the conformance run keeps on pytest's config.

The plugin writes these; the fixtures, the xdist wiring and the repro capture read
them. Keeping them here, apart from the plugin, lets each of those modules depend on
the run's state without importing the plugin (and the plugin's imports of them
without a cycle).
"""

from __future__ import annotations

import pytest

from ..adapter import Delivery, Implementation
from ..redaction import ArtifactSweep
from ..wire.ir import Dialect
from .collect import Collector

COLLECTOR = pytest.StashKey[Collector]()
IMPLEMENTATION = pytest.StashKey[Implementation]()
"""The implementation as loaded, before the guard wraps it."""
DIALECTS = pytest.StashKey[list[Dialect]]()
DELIVERIES = pytest.StashKey[list[Delivery]]()
PROFILE_BEFORE = pytest.StashKey[str]()
SWEEP = pytest.StashKey[ArtifactSweep]()


def dialects_for(config: pytest.Config) -> list[Dialect]:
    """The dialects every law runs in, as the plugin chose them at configure."""
    return config.stash[DIALECTS]


def deliveries_for(config: pytest.Config) -> list[Delivery]:
    """The deliveries every law is parametrized over, as the plugin chose them."""
    return config.stash[DELIVERIES]
