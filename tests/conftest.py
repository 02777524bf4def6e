"""Shared fixtures: every wire test runs over both transports."""

from __future__ import annotations

import pytest

from conformance.wire import ScriptedProvider

pytest_plugins = ["pytester"]

API_KEY = "sk-turnlaw-test-SECRET-0123456789"


@pytest.fixture(params=["in_process", "loopback"])
def provider(request: pytest.FixtureRequest) -> ScriptedProvider:
    """The plugin's fake provider over one transport or the other."""
    name = "fake_provider" if request.param == "in_process" else "loopback_provider"
    fixture: ScriptedProvider = request.getfixturevalue(name)
    return fixture
