"""Fixtures for the provider tests: the fake over each transport, each call mode."""

from __future__ import annotations

import pytest

from conformance.wire import ScriptedProvider


@pytest.fixture(params=["in_process", "loopback"])
def fake(request: pytest.FixtureRequest) -> ScriptedProvider:
    """The plugin's fake provider, in-process (respx) or over real HTTP on 127.0.0.1."""
    name = "fake_provider" if request.param == "in_process" else "loopback_provider"
    provider: ScriptedProvider = request.getfixturevalue(name)
    return provider


@pytest.fixture(params=[True, False], ids=["stream", "create"])
def stream(request: pytest.FixtureRequest) -> bool:
    """Streaming (the default, through the SDK's stream helper) or one-shot `create`."""
    value: bool = request.param
    return value
